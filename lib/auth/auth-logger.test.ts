import { AccessDenied, CredentialsSignin, JWTSessionError, MissingSecret } from "@auth/core/errors";
import { describe, expect, it } from "vitest";
import { type AuthLogSink, authLogger } from "./auth-logger";

function recording() {
  const lines: { level: keyof AuthLogSink; obj: Record<string, unknown>; msg: string }[] = [];
  const at = (level: keyof AuthLogSink) => (obj: object, msg: string) =>
    lines.push({ level, obj: obj as Record<string, unknown>, msg });
  const sink: AuthLogSink = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { lines, logger: authLogger(() => sink) };
}

describe("Auth.js through the app's log", () => {
  it("logs a refused sign-in as an expected event: info, its code, no stack", () => {
    const { lines, logger } = recording();
    const refused = new CredentialsSignin();
    refused.code = "invalid";
    logger.error(refused);
    logger.error(new AccessDenied("AccessDenied"));
    expect(lines).toEqual([
      {
        level: "info",
        obj: { component: "auth", type: "CredentialsSignin", code: "invalid" },
        msg: "auth: CredentialsSignin",
      },
      { level: "info", obj: { component: "auth", type: "AccessDenied" }, msg: "auth: AccessDenied" },
    ]);
    expect(JSON.stringify(lines)).not.toContain("    at ");
  });

  it("warns of a session cookie it cannot read (tampered, or another AUTH_SECRET), with the reason", () => {
    const { lines, logger } = recording();
    // As Auth.js makes it (its types admit only a message): the cause is the decryption's own error.
    logger.error(new JWTSessionError(new Error("no matching decryption secret") as unknown as string));
    expect(lines).toEqual([
      {
        level: "warn",
        obj: { component: "auth", type: "JWTSessionError", cause: "no matching decryption secret" },
        msg: "auth: JWTSessionError (a session cookie could not be read)",
      },
    ]);
  });

  it("logs anything else as an error with the error itself", () => {
    const { lines, logger } = recording();
    const error = new MissingSecret("Please define a `secret`");
    logger.error(error);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: "error",
      msg: "auth: MissingSecret",
      obj: { type: "MissingSecret", err: error, detail: "Please define a `secret`" },
    });
  });

  it("passes warnings and debug lines on", () => {
    const { lines, logger } = recording();
    logger.warn("debug-enabled");
    logger.debug("adapter_getUserByEmail", { args: [] });
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ["warn", "auth warning: debug-enabled"],
      ["debug", "auth: adapter_getUserByEmail"],
    ]);
  });
});
