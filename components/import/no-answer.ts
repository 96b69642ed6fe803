/** The page's words when an action's request failed in transit: no answer, so no result to show. */
export const NO_ANSWER =
  "Linkdesk did not answer: the connection failed, or a proxy refused the request (a 502 or 413). If it reached Linkdesk it may have been done (see Jobs); doing it again is safe: links already imported are skipped, and a job is never started twice for the same links.";
