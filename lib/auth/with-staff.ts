import "server-only";
import type { NextRequest } from "next/server";
import { refuseUnreadableInput } from "../http/storable-input";
import type { SignedInStaff } from "./credentials";
import { currentStaff } from "./index";
import { type Permission, can } from "./roles";

// Every staff route handler is built from this wrapper, the GET twin of lib/actions/safe-action.ts: an address that
// cannot be read is refused, then the sign-in and the role are checked, and no answer is ever kept by a cache. A
// route handler can be called by any request, so the checks live here and not only in the proxy or the UI.

type RouteParams = Record<string, string | string[] | undefined>;

/** What a refused caller is told: "Sign in first." unless `signIn` says otherwise, and "Your role may not {mayNot}." */
export interface StaffRouteWords {
  mayNot: string;
  signIn?: string;
}

const NO_STORE = "no-store";

export function withStaff<P extends RouteParams = RouteParams>(
  permission: Permission,
  words: StaffRouteWords,
  handler: (request: NextRequest, staff: SignedInStaff, params: P) => Promise<Response>,
): (request: NextRequest, context: { params: Promise<P> }) => Promise<Response> {
  return async (request, context) => {
    const unreadable = await refuseUnreadableInput(request, context?.params);
    if (unreadable) return unreadable;
    const noStore = { "Cache-Control": NO_STORE };
    const staff = await currentStaff();
    if (!staff) return Response.json({ error: words.signIn ?? "Sign in first." }, { status: 401, headers: noStore });
    if (!can(staff.role, permission))
      return Response.json({ error: `Your role may not ${words.mayNot}.` }, { status: 403, headers: noStore });
    const response = await handler(request, staff, ((await context?.params) ?? {}) as P);
    if (!response.headers.has("Cache-Control")) response.headers.set("Cache-Control", NO_STORE);
    return response;
  };
}
