// What a link operation's failed call says to the person: the action client's sentence, the first validation message,
// or, when no answer came, that nothing is known to have happened.

export interface OperationFailure {
  serverError?: string;
  validationErrors?: { formErrors: string[]; fieldErrors: Partial<Record<string, string[]>> };
}

export function operationProblem(result: OperationFailure, hasErrored: boolean): string | null {
  if (result.serverError) return result.serverError;
  const first =
    result.validationErrors?.formErrors[0] ?? Object.values(result.validationErrors?.fieldErrors ?? {}).flat()[0];
  if (first) return first;
  return hasErrored
    ? "Linkdesk did not answer. Check your connection and reload the page to see whether it went through before trying again."
    : null;
}
