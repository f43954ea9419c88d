import type { FastifyInstance } from 'fastify';
import type { HealthResponse, PingResponse } from '../../contract/service.js';
import { policyOf } from '../keys.js';
import { ServiceError } from '../service-error.js';

/**
 * GET /ping (open) and GET /health (keyed); neither is rate limited, queued or shed, nor
 * touches user data, so both answer at once while the API is busy.
 */
export function registerSystemRoutes(app: FastifyInstance): void {
  app.get(
    '/ping',
    { config: { open: true, rateLimit: false, shed: false } },
    async (): Promise<PingResponse> => ({ status: 'ok' }),
  );

  app.get('/health', { config: { rateLimit: false, shed: false } }, async (request): Promise<HealthResponse> => {
    const key = request.partnerKey;
    if (!key) throw new ServiceError('invalid_api_key', 'missing or invalid API key');
    return { status: 'ok', partner_id: key.partnerId, environment: key.environment, rate_limit: policyOf(key) };
  });
}
