import { z } from 'zod';

/**
 * The one error body every route answers with, `{"error":{"code","message","details"?}}`, and the
 * one way every reader (renderer, tray, scripts, eval) gets its words back. Shared with the
 * renderer: nothing here runs only in Node. Some answers carry more beside `error` (what was decided
 * already, the change as it stands): kept, not stripped.
 */
export const errorBodySchema = z.looseObject({
  error: z.object({
    code: z.string(),
    message: z.string(),
    /** Where a request did not fit (`path`, `message`), or what a refusal turned on (the rule and its groups). */
    details: z.union([z.array(z.object({ path: z.string(), message: z.string() })), z.record(z.string(), z.unknown())]).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
export type FieldProblems = Extract<NonNullable<ErrorBody['error']['details']>, unknown[]>;

export const errorBody = (code: string, message: string, details?: ErrorBody['error']['details']): ErrorBody => ({
  error: details ? { code, message, details } : { code, message },
});

/** A route's error answers, for its `response` schema: every 4xx and 5xx it sends has this body. */
export const errorResponses = { '4xx': errorBodySchema, '5xx': errorBodySchema } as const;

/** The `response` schema of a route whose successes are its own to shape (pages, files, streams): only its errors are declared. */
export const answersAndErrors = { '2xx': z.unknown(), ...errorResponses } as const;

/** The relay's error body in an answer, or undefined when the answer is not one (a proxy's page, nothing). */
export function errorOf(body: unknown): ErrorBody['error'] | undefined {
  return errorBodySchema.safeParse(body).data?.error;
}

/** The relay's error body in an answer's text, or undefined when the text is not one. */
export function errorOfText(text: string): ErrorBody['error'] | undefined {
  try {
    return errorOf(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Anything thrown or answered, as words for a person: an Error's message, an error body's, a string as it is. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return errorOf(error)?.message ?? String(error);
}
