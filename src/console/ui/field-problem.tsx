import type { ShownError } from '../shell/ferry-api.js';

/**
 * Whether the API's refusal points at `field` (a JSON path such as `timing.expression`): the field itself or a
 * member of it (`request.headers.X-A` belongs to `request.headers`, `request.flow_keys[1]` to `request.flow_keys`).
 */
export function blames(error: ShownError | null, field: string): boolean {
  if (error === null || error.field === null) return false;
  return error.field === field || error.field.startsWith(`${field}.`) || error.field.startsWith(`${field}[`);
}

/** The attributes that tie an input to the refusal shown under it, so screen readers read them together. */
export function fieldAttributes(error: ShownError | null, field: string, id: string) {
  const wrong = blames(error, field);
  return { id, 'aria-invalid': wrong ? ('true' as const) : undefined, 'aria-describedby': wrong ? `${id}-problem` : undefined };
}

/** The API's message next to the field it blames; nothing when it blames another field. */
export function FieldProblem({ error, field, id }: { error: ShownError | null; field: string; id: string }) {
  if (error === null || !blames(error, field)) return null;
  return (
    <p class="field-problem" id={`${id}-problem`}>
      {error.message}
      {error.code ? <span class="muted"> ({error.code})</span> : null}
    </p>
  );
}

/** A refusal the console makes itself before calling Ferry (text that is not JSON, say), shaped like the API's. */
export function localProblem(field: string, message: string): ShownError {
  return { title: 'Check the form', status: null, code: null, message, field, requestId: null, retryAfter: null };
}
