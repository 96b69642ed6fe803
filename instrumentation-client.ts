import { config } from "zod/v4/core";

// Runs in the browser before any page code. Zod checks once whether it may compile parsers with `new Function`; under
// our Content-Security-Policy (no 'unsafe-eval') that check is refused and reported as a violation on every page that
// parses anything in the browser. Jitless, Zod neither checks nor compiles: same results, no report.
config({ jitless: true });
