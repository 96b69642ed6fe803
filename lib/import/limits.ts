// Limits of an import file, checked in the browser before and while reading it, and again on the server. The upstream's
// own limits per call (1 MB, 4000 transactions) are in lib/upstream/schemas.ts: a file is split to fit them.

export { IMPORT_MAX_TRANSACTIONS } from "../upstream/schemas";

/** The largest file Linkdesk takes: a legacy fleet export of about 20 MB fits with room to spare. */
export const UPLOAD_MAX_BYTES = 25 * 1024 * 1024;
export const UPLOAD_MAX_LABEL = "25 MB";

/** JSON nested deeper than this is refused before it is parsed (an Import Link body needs 5 levels). */
export const MAX_NESTING_DEPTH = 32;

/** Links in one file: a job of this many links runs for days at the upstream's 60 imports a minute. */
export const MAX_LINKS_PER_FILE = 20_000;

/** Problems listed per link; the rest are counted. */
export const MAX_PROBLEMS_PER_LINK = 20;

/**
 * Kinds of unknown field listed per link and per file; the rest are counted together under one entry. A hostile file
 * could carry a new key on every transaction, and its warnings must stay a list a person reads.
 */
export const MAX_FIELD_WARNINGS_PER_LINK = 20;
export const MAX_FIELD_WARNINGS_PER_FILE = 50;

/**
 * Distinct institutions whose names one preview asks the server for: each unknown id costs one
 * GET /institutions/{id} from the rate budget, so a fleet of thousands of links names at most this many (the first
 * ones in the file); the others show their id.
 */
export const MAX_INSTITUTION_NAMES = 20;

export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What makes the whole file unreadable: its size, its encoding, its syntax (with where, when known). */
export interface FileProblem {
  message: string;
  line?: number;
  column?: number;
}

/**
 * The size check made before anything is read: by the upload form's schema and the page (before the worker reads a
 * byte), and by the reader.
 */
export function checkFileSize(size: number): FileProblem | null {
  if (size === 0) return { message: "The file is empty." };
  if (size > UPLOAD_MAX_BYTES)
    return {
      message: `The file is ${describeBytes(size)}: over the ${UPLOAD_MAX_LABEL} Linkdesk takes. Split it into smaller files (NDJSON splits anywhere between lines).`,
    };
  return null;
}
