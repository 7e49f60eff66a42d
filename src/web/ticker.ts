// A dedicated worker that only counts time. Browsers throttle the timers of a hidden page
// (down to once a minute after a while), and a waiting person who switches tabs must still
// poll every 2 s or she would be taken for a closed window; a worker's timers keep time.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<number>) => void) | null;
  postMessage(message: string): void;
};
let timer: ReturnType<typeof setInterval> | undefined;

scope.onmessage = (event) => {
  clearInterval(timer);
  if (event.data > 0) timer = setInterval(() => scope.postMessage('tick'), event.data);
};
