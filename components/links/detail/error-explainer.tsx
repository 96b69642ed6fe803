import { Callout } from "@/components/ui/callout";
import {
  UNKNOWN_ERROR_INFO,
  WHO_ACTS_LABELS,
  isKnownLinkState,
  linkErrorInfo,
  linkStateLabel,
} from "@/lib/links/error-codes";
import type { LinkDetails } from "@/lib/links/types";

/**
 * What the link's error code means and what to do, from the one table of meanings (LINK_ERROR_INFO). For codes the
 * end user must fix, the relink path: the same link is repaired through a new link session naming it.
 */
export function ErrorExplainer({ link }: { link: LinkDetails }) {
  if (!link.error_code) {
    if (link.state === "connecting")
      return (
        <Callout title="Still connecting">
          The end user has not finished linking yet; nothing to do on our side.
        </Callout>
      );
    if (link.state === "awaiting_token_exchange") {
      return (
        <Callout title="Waiting for the token exchange">
          The user finished linking; the front end&rsquo;s exchangeable token has not been exchanged yet. Ops can do it
          on the Exchange token page.
        </Callout>
      );
    }
    if (!isKnownLinkState(link.state)) {
      return (
        <Callout title={`State: ${linkStateLabel(link.state)}`} role="status">
          The upstream reports a state added after this version of Linkdesk was written. Its products and their refresh
          times below say whether data still flows; the linking service&rsquo;s documentation says what the state means.
        </Callout>
      );
    }
    return null;
  }
  const info = linkErrorInfo(link.error_code);
  if (!info) {
    return (
      <Callout tone="error" title={`${UNKNOWN_ERROR_INFO.label} (${link.error_code})`} role="status">
        <div className="space-y-1" data-testid="error-meaning">
          <p>{UNKNOWN_ERROR_INFO.meaning}</p>
          <p>
            <span className="font-medium">What to do: </span>
            {UNKNOWN_ERROR_INFO.remedy}
          </p>
        </div>
      </Callout>
    );
  }
  return (
    <Callout
      tone={info.whoActs === "wait" ? "warning" : "error"}
      title={`${info.label} (${link.error_code})`}
      role="status"
    >
      <div className="space-y-1" data-testid="error-meaning">
        <p>{info.meaning}</p>
        <p>
          <span className="font-medium">What to do: </span>
          {info.remedy}
        </p>
        <p>
          <span className="font-medium">Who acts: </span>
          {WHO_ACTS_LABELS[info.whoActs]}
        </p>
        {info.whoActs === "user" ? (
          <p data-testid="relink-hint">
            To relink, the user goes through a new link session with <code className="font-mono">existing_link_id</code>{" "}
            set to <code className="break-all font-mono">{link.link_id}</code>: the link keeps its id and its data.
            Support can have Linkdesk make one and send it to the user under Reconnect requests below.
          </p>
        ) : null}
      </div>
    </Callout>
  );
}
