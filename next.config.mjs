/** @type {import('next').NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // Types are checked once, by `npm run typecheck` (the first step of `npm test` and CI), over the whole project
  // (tests, scripts and the sandbox included, which the build never sees). Checking them again in every build cost
  // each build about a minute and made a build fail on a test file's type error.
  typescript: { ignoreBuildErrors: true },
  // pino and PGlite rely on Node internals (worker threads, wasm files) that must not be bundled.
  serverExternalPackages: ["pino", "@electric-sql/pglite"],
  experimental: {
    // The Import page uploads files of up to 25 MB (lib/import/limits.ts) to a server action; multipart adds a few KB.
    // lib/http/request-guard.ts refuses, in words, anything over 1 MB on every other path, and over 26 MB here.
    // The proxy buffers a request's body too, and would cut it at its 10 MB default.
    serverActions: { bodySizeLimit: "26mb" },
    proxyClientMaxBodySize: "26mb",
  },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
};

export default nextConfig;
