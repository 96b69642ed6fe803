import nextCoreWebVitals from "eslint-config-next/core-web-vitals";
import nextTypeScript from "eslint-config-next/typescript";

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
          selector: "BinaryExpression[operator='instanceof'][right.name=/^(BudgetExceeded|BudgetUnavailable|BudgetUnavailableError|UpstreamError|ActionRefused|AuthError|CredentialsSignin)$/]",
          message:
            "instanceof fails across server chunks: use the brand guard (isBudgetExceeded, isBudgetUnavailable, isUpstreamError, isActionRefused; Auth.js errors by their type).",
        },
      ],
    },
  },
];

export default config;
