// The embedding application of the SDK test: a page that renders the real @jitsi/react-sdk
// JitsiMeeting component, bundled with esbuild at test time into a temporary directory.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Tap } from './api.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Events an application would listen to; each lands in window.events as {name, data}. */
export const sdkEvents = [
  'ready',
  'videoConferenceJoined',
  'videoConferenceLeft',
  'readyToClose',
  'participantJoined',
  'participantLeft',
  'audioMuteStatusChanged',
  'videoMuteStatusChanged',
  'incomingMessage',
  'outgoingMessage',
  'knockingParticipant',
  'errorOccurred',
  'displayNameChange',
  'subjectChange',
];

// window.start(props) renders <JitsiMeeting {...props}>; onApiReady keeps the API in window.api.
const source = `
import { createRoot } from 'react-dom/client';
import { JitsiMeeting } from '@jitsi/react-sdk';
window.events = [];
window.readyToCloseCalls = 0;
window.start = (props) => {
  createRoot(document.getElementById('root')).render(
    <JitsiMeeting
      configOverwrite={{ prejoinConfig: { enabled: false } }}
      {...props}
      getIFrameRef={(div) => { div.style.height = '480px'; }}
      onApiReady={(api) => {
        window.api = api;
        for (const name of ${JSON.stringify(sdkEvents)}) api.addListener(name, (data) => window.events.push({ name, data }));
      }}
      onReadyToClose={() => { window.readyToCloseCalls += 1; }}
    />,
  );
};
`;

/** The bundled page script (React, react-dom and the SDK in one file). */
export async function reactPageScript(t: Tap): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'meet-react-page-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const outfile = join(dir, 'react-page.js');
  await build({
    stdin: { contents: source, loader: 'jsx', resolveDir: repoRoot, sourcefile: 'react-page.jsx' },
    bundle: true,
    outfile,
    format: 'iife',
    jsx: 'automatic',
    target: 'chrome110',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return readFileSync(outfile, 'utf8');
}
