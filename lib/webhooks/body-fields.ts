// A webhook's body as a list of fields for people to read: nested names joined with dots (error.code, link_tags[0]),
// every value as text. The body is whatever the sender put there, so the list and each value are bounded, and the
// page renders them as text only (a URL in a body stays text, never a link).

export interface BodyField {
  name: string;
  value: string;
}

export interface BodyFields {
  fields: BodyField[];
  /** Fields past the limit, left out of `fields`. */
  more: number;
}

export const MAX_BODY_FIELDS = 60;
export const MAX_FIELD_CHARS = 400;

const clip = (text: string) => (text.length > MAX_FIELD_CHARS ? `${text.slice(0, MAX_FIELD_CHARS)}…` : text);

function valueText(value: unknown): string {
  if (value === null) return "(empty)";
  if (typeof value === "string") return value === "" ? "(empty text)" : clip(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return clip(JSON.stringify(value) ?? "");
}

/** The body's leaves, in the order the sender wrote them; an empty object or list is a leaf of its own. */
export function bodyFields(body: unknown): BodyFields {
  const fields: BodyField[] = [];
  let more = 0;
  if (body === null || body === undefined) return { fields, more };
  // Iterative, so no depth of nesting can overflow the stack.
  const stack: { name: string; value: unknown }[] = [{ name: "", value: body }];
  while (stack.length > 0) {
    const { name, value } = stack.pop()!;
    const children = Array.isArray(value)
      ? value.map((item, i) => ({ name: `${name}[${i}]`, value: item as unknown }))
      : value !== null && typeof value === "object"
        ? Object.entries(value).map(([key, item]) => ({ name: name ? `${name}.${key}` : key, value: item as unknown }))
        : null;
    if (children && children.length > 0) {
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
      continue;
    }
    // A body of {} or [] has no fields to list.
    if (name === "" && children !== null) continue;
    if (fields.length >= MAX_BODY_FIELDS) {
      more++;
      continue;
    }
    fields.push({
      name: name === "" ? "(body)" : name,
      value: children ? (Array.isArray(value) ? "(empty list)" : "(no fields)") : valueText(value),
    });
  }
  return { fields, more };
}
