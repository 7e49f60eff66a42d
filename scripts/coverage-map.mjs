// tap's coverage map (package.json "tap"."coverage-map"): which test files run with V8 coverage
// for the floor of scripts/coverage-gate.mjs. The browser tier (test/e2e) runs without it: what
// it proves is the page in Chromium, which Node's coverage does not see, and the server code its
// daemons run is covered by the unit, service and process tiers (the floor holds from those three
// alone). Coverage costs about a third more CPU on what it instruments. [] means "all sources".
/** @param {string} file a test file, relative to the project root */
export default function coverageMap(file) {
  return file.startsWith('test/e2e/') || file.startsWith('test/shards/e2e-') ? null : [];
}
