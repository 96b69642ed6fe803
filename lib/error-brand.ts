// Errors that one module throws and another recognises carry a brand, and are recognised by it, never by `instanceof`.
// Next bundles a module into every server chunk that imports it, so a class exists once per chunk: an error made by
// one chunk's copy of BudgetExceeded is not an instance of another chunk's copy, and `instanceof` silently says no.
// A brand is a property keyed by a registered symbol (Symbol.for), which is the same symbol in every copy.

const brandKey = (name: string) => Symbol.for(`linkdesk.error.${name}`);

/** Marks `error` as a `name` error, for hasErrorBrand. Call it in the class's constructor. */
export function brandError(error: Error, name: string): void {
  Object.defineProperty(error, brandKey(name), { value: true, enumerable: false });
}

/** Whether `value` is an error branded `name`, whichever copy of its class made it. */
export function hasErrorBrand(value: unknown, name: string): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[brandKey(name)] === true;
}
