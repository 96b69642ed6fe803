"use client";

import { createContext, useContext } from "react";

// The origins upstream pictures may be loaded from, as the server's Content-Security-Policy allows them (proxy.ts and
// the dashboard layout read the same configuration). Without a provider (unit tests), any http(s) host.

const ImageOriginsContext = createContext<readonly string[] | null>(null);

export function ImageOriginsProvider({ origins, children }: { origins: readonly string[]; children: React.ReactNode }) {
  return <ImageOriginsContext value={origins}>{children}</ImageOriginsContext>;
}

export function useImageOrigins(): readonly string[] | null {
  return useContext(ImageOriginsContext);
}
