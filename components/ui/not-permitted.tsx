import { Callout } from "./callout";

/** What a signed-in person sees on a page their role may not use (the server refuses its actions anyway). */
export function NotPermitted({ what }: { what: string }) {
  return (
    <div className="max-w-2xl">
      <Callout tone="warning" title="Not available for your role">
        Your role may not {what}. Ask an admin if your job needs it.
      </Callout>
    </div>
  );
}
