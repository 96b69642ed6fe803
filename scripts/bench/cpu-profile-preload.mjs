// Preloaded into the dashboard by profile-page.ts (NODE_OPTIONS=--import; Node 20 refuses --cpu-prof there): the
// first SIGUSR2 starts V8's CPU profiler, the second stops it and writes the profile to LINKDESK_CPU_PROFILE.
import { writeFileSync } from "node:fs";
import inspector from "node:inspector";

const session = new inspector.Session();
session.connect();
let running = false;
process.on("SIGUSR2", () => {
  if (!running) {
    running = true;
    session.post("Profiler.enable", () => session.post("Profiler.start"));
    return;
  }
  running = false;
  session.post("Profiler.stop", (error, result) => {
    if (!error) writeFileSync(process.env.LINKDESK_CPU_PROFILE, JSON.stringify(result.profile));
  });
});
