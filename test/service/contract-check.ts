/**
 * Validates responses against the generated OpenAPI document with ajv, so every response a
 * service test sees also checks the document (and the document checks the service).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '../../src/service/openapi.js';
import { VERSION_PREFIX } from '../../src/contract/paths.js';

type Json = Record<string, any>;
// A CommonJS module whose types declare an ES default: its function is on `.default` both ways.
const addFormats = addFormatsModule.default;

/** Codes any request may meet on a path or method the document has no operation for. */
const ANY_PATH_CODES = new Set([
  'not_found',
  'method_not_allowed',
  'invalid_request',
  'request_timeout',
  'request_header_too_large',
  'invalid_api_key',
]);

export interface ResponseCheck {
  /** Problems with one response; empty when it conforms. */
  check(input: {
    method: string;
    url: string;
    status: number;
    headers: Record<string, unknown>;
    body: string;
  }): string[];
}

/** The codes an error response documents as known (the first branch of its open `code`), or null. */
export function knownCodes(response: Json): string[] | null {
  const code = response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.properties?.code;
  return Array.isArray(code?.anyOf?.[0]?.enum) ? (code.anyOf[0].enum as string[]) : null;
}

/** Builds the checker over the document as `camroll openapi` prints it. */
export function createResponseCheck(): ResponseCheck {
  const document = buildOpenApiDocument() as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // Response schemas live in the paths, and refer to the components: one schema holds both.
  ajv.addSchema({ $id: 'openapi.json', components: document.components, paths: document.paths });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validatorAt = (pointer: string) => {
    let fn = compiled.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `openapi.json#${pointer}` });
      compiled.set(pointer, fn);
    }
    return fn;
  };

  const routes = Object.keys(document.paths as Json).map((template) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

  return {
    check({ method, url, status, headers, body }) {
      const problems: string[] = [];
      const path = (url.split('?')[0] ?? '').replace(new RegExp(`^${VERSION_PREFIX}`), '');
      const route = url.startsWith(`${VERSION_PREFIX}/`) ? routes.find((r) => r.pattern.test(path)) : undefined;
      const operation = route ? (document.paths[route.template] as Json)[method.toLowerCase()] : undefined;
      if (method === 'HEAD') return problems; // no body to check
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return [`${method} ${url} -> ${status}: the body is not JSON`];
      }
      if (!operation) {
        // No operation: only the errors that can meet any request.
        const code = (parsed as Json)?.error?.code;
        if (!validatorAt('/components/schemas/ErrorEnvelope')(parsed))
          problems.push(`${method} ${url} -> ${status}: not the error envelope`);
        else if (!ANY_PATH_CODES.has(code))
          problems.push(`${method} ${url} -> ${status}: code ${code} outside an operation`);
        return problems;
      }
      const response = operation.responses[String(status)] as Json | undefined;
      if (!response) return [`${method} ${url} -> ${status}: status not documented for ${operation.operationId}`];
      const pointer = `/paths/${escapePointer(route!.template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = validatorAt(pointer);
      if (!validate(parsed))
        problems.push(`${method} ${url} -> ${status}: ${ajv.errorsText(validate.errors)} in ${body.slice(0, 300)}`);
      // The document leaves error.code open to codes added later (clients go by the status);
      // this service must still answer only the codes it documents for the status.
      const known = knownCodes(response);
      const code = (parsed as Json)?.error?.code;
      if (known && typeof code === 'string' && !known.includes(code)) {
        problems.push(
          `${method} ${url} -> ${status}: code ${code} not among the known codes of ${operation.operationId} (${known.join(', ')})`,
        );
      }
      for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
        const value = headers[name.toLowerCase()];
        if (header.required && value === undefined)
          problems.push(`${method} ${url} -> ${status}: header ${name} missing`);
        if (value !== undefined && header.schema?.type === 'integer' && !/^\d+$/.test(String(value))) {
          problems.push(`${method} ${url} -> ${status}: header ${name} is not an integer: ${String(value)}`);
        }
      }
      return problems;
    },
  };
}
