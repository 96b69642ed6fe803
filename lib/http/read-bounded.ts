/**
 * A request body's bytes up to `limit`, and whether there was more (the rest is not read: the stream is cancelled).
 * For route handlers that judge their own bodies; the door (proxy.ts) holds every body to its path's limit too.
 */
export async function readBoundedBody(
  request: Request,
  limit: number,
): Promise<{ body: Uint8Array; overLimit: boolean }> {
  if (!request.body) return { body: new Uint8Array(), overLimit: false };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        return { body: new Uint8Array(), overLimit: true };
      }
      chunks.push(value);
    }
  } catch {
    // The sender went away mid-body: what arrived is judged like any other body (cut short, it is not valid JSON).
  }
  return { body: Buffer.concat(chunks), overLimit: false };
}
