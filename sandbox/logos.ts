// The sandbox serves its own institution and merchant logos, so a demo or a test shows real images with no network
// beyond this machine. The seed data names them by path on the sandbox (LOGO_PATH_PREFIX); every JSON answer makes
// those paths absolute on the way out (absoluteLogoUrls), because the address the sandbox listens on is only known
// once it listens. The pictures are drawn here from the catalog's own monograms and colours: no upstream or user text
// ever goes into an SVG.

/** Where logos live on the sandbox; a value starting with it in seed data is a logo of the sandbox's own. */
export const LOGO_PATH_PREFIX = "/_sandbox/logos/";

export type LogoKind = "institutions" | "merchants";

/** The path of a logo on the sandbox, e.g. /_sandbox/logos/institutions/chase.svg. */
export const logoPath = (kind: LogoKind, slug: string) => `${LOGO_PATH_PREFIX}${kind}/${slug}.svg`;

export interface LogoArt {
  /** One to three letters or digits. */
  monogram: string;
  /** #rrggbb */
  color: string;
}

const SAFE_MONOGRAM = /^[A-Z0-9&]{1,3}$/;
const SAFE_COLOR = /^#[0-9a-f]{6}$/i;

/** A square logo: the monogram in white on the colour, with a lighter band so it reads as a logo, not a placeholder. */
export function logoSvg({ monogram, color }: LogoArt): string {
  // The catalog is the sandbox's own data, but a bad entry must not become markup.
  if (!SAFE_MONOGRAM.test(monogram))
    throw new RangeError(`logo monogram must be 1-3 capital letters or digits, got ${JSON.stringify(monogram)}`);
  if (!SAFE_COLOR.test(color)) throw new RangeError(`logo colour must be #rrggbb, got ${JSON.stringify(color)}`);
  const text = monogram.replace("&", "&amp;");
  const size = monogram.length >= 3 ? 22 : monogram.length === 2 ? 27 : 34;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">`,
    `<rect width="64" height="64" rx="14" fill="${color}"/>`,
    `<path d="M0 46h64v4a14 14 0 0 1-14 14H14A14 14 0 0 1 0 50z" fill="#fff" fill-opacity=".22"/>`,
    `<text x="32" y="${monogram.length >= 3 ? 38 : 41}" text-anchor="middle" font-family="Helvetica,Arial,sans-serif" font-weight="700" font-size="${size}" fill="#fff">${text}</text>`,
    `</svg>`,
  ].join("");
}

/** A colour for a name without one of its own: the same name always gets the same colour. */
export function colorFor(name: string): string {
  let hash = 2166136261;
  for (const char of name) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619) >>> 0;
  return MERCHANT_PALETTE[hash % MERCHANT_PALETTE.length]!;
}

const MERCHANT_PALETTE = [
  "#0f766e",
  "#1d4ed8",
  "#7e22ce",
  "#be123c",
  "#b45309",
  "#15803d",
  "#0369a1",
  "#4338ca",
  "#a21caf",
  "#c2410c",
] as const;

/** Two letters from a merchant's slug: "whole-foods" -> "WF", "amazon" -> "AM", "1800flowers" -> "18". */
export function monogramOf(slug: string): string {
  const words = slug.split(/[^a-z0-9]+/i).filter(Boolean);
  const letters = words.length >= 2 ? `${words[0]![0]}${words[1]![0]}` : (words[0] ?? "?").slice(0, 2);
  const monogram = letters.toUpperCase().replace(/[^A-Z0-9]/g, "");
  return monogram || "?";
}

/**
 * The JSON text of an answer with every logo path made absolute on `baseUrl` (http://127.0.0.1:4010). A plain text
 * replace of the quoted prefix: only a JSON string value can start with a quote followed by it.
 */
export function absoluteLogoUrls(json: string, baseUrl: string): string {
  const quoted = `"${LOGO_PATH_PREFIX}`;
  return json.includes(quoted) ? json.replaceAll(quoted, `"${baseUrl}${LOGO_PATH_PREFIX}`) : json;
}
