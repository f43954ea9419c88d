import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isValidEmail, normalizeEmail } from '../../rules/email.js';
import { PROFILE_MAX_LENGTH, UserCreateRequest, UserId, type UserCreateResponse } from '../../contract/users.js';
import type { ServiceDeps } from '../deps.js';
import { ServiceError } from '../service-error.js';
import type { Scope, UserRow } from '../store/types.js';

/** The scope of the request's key. Only called behind the auth hook. */
export function scopeOf(request: FastifyRequest): Scope {
  const key = request.partnerKey;
  if (!key) throw new ServiceError('invalid_api_key', 'missing or invalid API key');
  return { partnerId: key.partnerId, environment: key.environment };
}

/** The path's user under the key's scope, or 404 user_not_found (any other partner or environment included). */
export async function requireUser(
  deps: ServiceDeps,
  request: FastifyRequest<{ Params: { userId: string } }>,
): Promise<UserRow> {
  const userId = request.params.userId;
  const user = UserId.safeParse(userId).success
    ? await deps.store.findUser(userId.toLowerCase(), scopeOf(request))
    : null;
  if (!user) throw new ServiceError('user_not_found', 'no user with that id under this partner key');
  return user;
}

/** Drops members sent as null: the contract's optional strings are simply absent then. */
function withoutNulls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    out[key] =
      key === 'address' && typeof member === 'object' && !Array.isArray(member)
        ? withoutNulls(member as Record<string, unknown>)
        : member;
  }
  return out;
}

/** POST /users: idempotent on the normalised e-mail (rules/email.ts) within (partner, environment). */
export function registerUserRoutes(app: FastifyInstance, deps: ServiceDeps): void {
  app.post('/users', async (request, reply) => {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new ServiceError('invalid_request', 'body must be a JSON object');
    }
    const raw = (body as { email?: unknown }).email;
    const email = typeof raw === 'string' ? normalizeEmail(raw) : '';
    if (!isValidEmail(email)) throw new ServiceError('invalid_email', 'email is missing or not a valid address');
    const members = withoutNulls(body as Record<string, unknown>);
    // The contract: a phone number never makes the call fail; one that is not a string, or is
    // longer than any phone number (PROFILE_MAX_LENGTH), is ignored.
    const phoneNumber = members.phone_number;
    if (typeof phoneNumber !== 'string' || phoneNumber.length > PROFILE_MAX_LENGTH.phone_number) {
      delete members.phone_number;
    }
    const parsed = UserCreateRequest.safeParse({ ...members, email });
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || 'body';
      // A member over its length names its cap: the client can say which field to shorten.
      const maxLength = issue?.code === 'too_big' ? { max_length: Number(issue.maximum) } : {};
      throw new ServiceError('invalid_request', `invalid ${field}: ${issue?.message ?? ''}`, {
        details: { field, ...maxLength },
      });
    }
    const input = parsed.data;
    const phone = input.phone_number?.trim();
    const { user, existing } = await deps.store.createUser(
      {
        email,
        partnerUserId: input.partner_user_id,
        firstName: input.first_name,
        lastName: input.last_name,
        phoneNumber: phone ? phone : undefined,
        address: input.address,
      },
      scopeOf(request),
      new Date(deps.clock()).toISOString(),
    );
    const response: UserCreateResponse = { user_id: user.id, existing, created_at: user.created_at };
    return reply.code(201).send(response);
  });
}
