"use client";

import { useState } from "react";
import { imageUrl } from "@/lib/http/safe-url";
import { useImageOrigins } from "./image-origins";

// An institution's or merchant's picture, or its initials on a colour of its own whenever there is no usable picture:
// none given, not an http(s) address on an allowed picture origin (refused, never loaded: see image-origins.tsx), or
// one that fails to load (offline, 404, a host that does not resolve), even before React hydrated. A plain <img>, not
// next/image: pictures come from the upstream's hosts, not ours.

/** Background colours for initials: each carries white text at 4.5:1 or better (WCAG AA). */
const PALETTE = [
  "#b91c1c",
  "#c2410c",
  "#a16207",
  "#15803d",
  "#047857",
  "#0f766e",
  "#0369a1",
  "#1d4ed8",
  "#4338ca",
  "#7e22ce",
  "#a21caf",
  "#be185d",
  "#475569",
] as const;

/** The same key (an institution id, a merchant id) always gets the same colour, on every page and for every reader. */
export function avatarColor(key: string): string {
  let hash = 2166136261;
  for (const char of key) hash = Math.imul(hash ^ char.codePointAt(0)!, 16777619) >>> 0;
  return PALETTE[hash % PALETTE.length]!;
}

const MINOR_WORDS = new Set(["of", "the", "and", "de", "la", "du"]);

/** "Bank of America" → "BA", "Chase" → "CH", "U.S. Bank" → "US"; letters and digits only, so any text is safe. */
export function initialsOf(name: string): string {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const major = words.filter((w) => !MINOR_WORDS.has(w.toLowerCase()));
  const picked = major.length > 0 ? major : words;
  if (picked.length === 0) return "?";
  const letters =
    picked.length === 1
      ? Array.from(picked[0]!).slice(0, 2).join("")
      : `${Array.from(picked[0]!)[0]}${Array.from(picked[1]!)[0]}`;
  return letters.toLocaleUpperCase("en");
}

export interface EntityAvatarProps {
  /** The picture's address as the upstream gave it: used only when it is http(s) on an allowed picture origin. */
  src: string | null | undefined;
  /** The name the initials come from (upstream text: rendered as text only). */
  name: string;
  /** What picks the colour: a stable id (institution id, merchant id); the name when absent. */
  colorKey?: string | null;
  /** Square size in CSS pixels. */
  size?: number;
  /**
   * Alternative text when the picture stands alone. Omitted (the usual case), the avatar is decoration beside the
   * name shown next to it, and hidden from screen readers.
   */
  label?: string;
}

export function EntityAvatar({ src, name, colorKey, size = 24, label }: EntityAvatarProps) {
  const url = imageUrl(src, useImageOrigins());
  // The address that failed, not a flag: a new address gets its own try.
  const [failedUrl, setFailedUrl] = useState<string | null>(null);
  const box = { width: size, height: size };
  if (url && failedUrl !== url) {
    return (
      // eslint-disable-next-line @next/next/no-img-element -- arbitrary upstream hosts, see above
      <img
        // An image that failed before hydration fired its error event with no listener: look once it is attached.
        ref={(img) => {
          if (img && img.complete && img.naturalWidth === 0) setFailedUrl(url);
        }}
        src={url}
        alt={label ?? ""}
        width={size}
        height={size}
        loading="lazy"
        onError={() => setFailedUrl(url)}
        className="entity-avatar"
      />
    );
  }
  return (
    <span
      {...(label ? { role: "img", "aria-label": label } : { "aria-hidden": true })}
      data-testid="avatar-placeholder"
      className="entity-avatar-initials"
      style={{ ...box, backgroundColor: avatarColor(colorKey || name), fontSize: Math.max(9, Math.round(size * 0.4)) }}
    >
      {initialsOf(name)}
    </span>
  );
}
