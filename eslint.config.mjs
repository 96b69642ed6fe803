import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypeScript from "eslint-config-next/typescript";

// The layers the code keeps (docs/decisions/layers.md): an import that runs back up fails lint. Each folder's rule
// lists every pattern that holds there (a later block's rule replaces an earlier one's for the same files).
const TESTS = [
  "**/*.test.ts",
  "**/*.test.tsx",
  // Test support, all in lib/testing/: test databases, worker processes, redirects, wire fixtures, the words matcher.
  "lib/testing/**",
];
const noTesting = {
  regex: "(^|/)testing(/|$)",
  message: "Product code never imports test support (lib/testing/): only tests and other test support do.",
};
const noSandbox = {
  regex: "(^|/)sandbox/",
  message: "lib never imports the sandbox: demo facts come from configuration (lib/env.ts).",
};
// The sandbox is a model of the upstream, written from the spec and the facts (docs/decisions/sandbox-model.md): a
// model that shared Linkdesk's types could never disagree with it. Its tests are held too.
const noLib = {
  regex: "^(@/lib(/|$)|(\\.\\./)+lib(/|$))",
  message:
    "The sandbox imports nothing from lib/: its vocabulary and shapes come from the spec and the facts, in sandbox/.",
};
const noUi = {
  regex: "^(@/|(\\.\\./)+)(app|components)/",
  message: "lib is under app/ and components/: it never imports them.",
};
const doorOnly = {
  regex: "^(@/lib/|\\.\\./)(?!budget($|/)|env$|logger$|error-brand$|db/schema$)",
  message:
    "The upstream door only calls: it may use the rate budget, configuration, the logger and error brands; what happens with an answer is an observer wired at start (lib/startup.ts).",
};
const doorStoreTypes = {
  regex: "^\\.\\./db/schema$",
  allowTypeImports: true,
  message: "The door may name the store's types, never write it.",
};
// The import reader has one way in (docs/decisions/layers.md): the steps behind it are its own business.
const readerEntryOnly = {
  regex: "(^|/)import/reader/",
  message: "The import reader has one way in: import from lib/import/reader, not the files behind it.",
};
// Not yet held to componentsMayNot: the links list and the health page are being reworked under issue 26, and four
// server components still read the door or the database themselves instead of through a lib/ query module.
const componentsNotYetHeld = [
  "components/links/list/**",
  "components/health/**",
  "components/links/detail/link-accounts.tsx",
  "components/links/sync-status.tsx",
  "components/links/detail/link-audit-history.tsx",
  "components/webhooks/link-events.tsx",
];
const componentsMayNot = [
  {
    regex: "^@/lib/upstream/(schemas|index|client|fixtures)$|^@/lib/upstream$",
    message: "Components get app types (lib/links/types.ts), not wire types, and never call the door.",
  },
  { regex: "^@/lib/db/client$", message: "Components read through lib/ (a query module), never the database client." },
];

const config = [
  ...nextCoreWebVitals,
  ...nextTypeScript,
  { ignores: [".next/**", "node_modules/**", ".data/**", "test-results/**", "playwright-report/**", "next-env.d.ts"] },
  {
    rules: {
      // Next bundles a class once per server chunk that imports it, so `instanceof` misses an error made by another
      // chunk's copy (a full budget answered 500 instead of 429). These errors carry a brand (lib/error-brand.ts).
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "BinaryExpression[operator='instanceof'][right.name=/^(BudgetExceeded|BudgetUnavailable|BudgetUnavailableError|UpstreamError|ActionRefused|AuthError|CredentialsSignin)$/]",
          message:
            "instanceof fails across server chunks: use the brand guard (isBudgetExceeded, isBudgetUnavailable, isUpstreamError, isActionRefused; Auth.js errors by their type).",
        },
      ],
    },
  },
  {
    files: ["lib/**/*.ts", "lib/**/*.tsx"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: [noSandbox, noUi, noTesting, readerEntryOnly] }] },
  },
  {
    files: ["lib/upstream/**/*.ts"],
    ignores: TESTS,
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [noSandbox, noUi, doorOnly, doorStoreTypes, noTesting, readerEntryOnly] },
      ],
    },
  },
  {
    files: ["components/**/*.ts", "components/**/*.tsx"],
    ignores: [...TESTS, ...componentsNotYetHeld],
    rules: { "no-restricted-imports": ["error", { patterns: [...componentsMayNot, noTesting, readerEntryOnly] }] },
  },
  {
    files: ["app/**/*.ts", "app/**/*.tsx", "*.ts", ...componentsNotYetHeld],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: [noTesting, readerEntryOnly] }] },
  },
  {
    // The benchmarks time the import reader's steps apart, so they may reach behind its entry.
    files: ["scripts/**/*.ts"],
    ignores: TESTS,
    rules: { "no-restricted-imports": ["error", { patterns: [noTesting] }] },
  },
  {
    // The benchmarks measure against the same real peers as the tests (a receiver that verifies every signature).
    files: ["scripts/bench/**/*.ts"],
    ignores: TESTS,
    rules: { "no-restricted-imports": "off" },
  },
  {
    files: ["sandbox/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [noLib] }] },
  },
];

export default config;
