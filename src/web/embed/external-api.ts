// external_api.js: the embedding script an application loads with
// <script src="https://{domain}/external_api.js">. A classic script, not a module: the build
// bundles it with its name tables (api-names.ts) into one function, so nothing but the two
// constructors reaches the page's globals.
//
// Envelope (objects through postMessage, always to one exact target origin, never "*"):
//   parent -> page  { videomeet: 'v1', kind: 'command',  name, args: [...] }
//   parent -> page  { videomeet: 'v1', kind: 'request',  id, name, args: [...] }
//   page -> parent  { videomeet: 'v1', kind: 'ready' }
//   page -> parent  { videomeet: 'v1', kind: 'event',    name, data: {...} }
//   page -> parent  { videomeet: 'v1', kind: 'response', id, result } | { ..., id, error }
// plus the gateway's refusal page: { type: 'errorOccurred', error: { name, message, isFatal } }, told
// to listeners flat, as the embedded client does: { name, message, type, isFatal }.
// The parent believes a message only when it comes from its own iframe's window AND from
// the service's origin (the iframe's, or the page origin the server baked in below).
import {
  commands,
  deviceSetters,
  events,
  notSupported,
  pageRequests,
  unsupportedAnswers,
  unsupportedCommands,
} from './api-names.js';

(() => {
  type Listener = (data: unknown) => void;
  type Options = {
    roomName?: unknown;
    width?: unknown;
    height?: unknown;
    parentNode?: unknown;
    configOverwrite?: unknown;
    interfaceConfigOverwrite?: unknown;
    jwt?: unknown;
    onload?: unknown;
    userInfo?: unknown;
    lang?: unknown;
    devices?: unknown;
    noSSL?: unknown;
  };
  type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; timer: number };

  const envelope = 'v1';
  // The server writes the origin of its meeting pages (COMPAT_FRONTEND_URL) here when it
  // serves the script: the gateway redirects the iframe there, so events come from it.
  const bakedPageOrigin = '__VIDEOMEET_PAGE_ORIGIN__';
  const requestTimeoutMs = 10_000;

  // The scheme is the script's own: http on a test loopback, https behind the proxy.
  const script = document.currentScript as HTMLScriptElement | null;
  const scheme = (() => {
    try {
      return script?.src ? new URL(script.src).protocol : 'https:';
    } catch {
      return 'https:';
    }
  })();

  const cssUnits = /^\d+(\.\d+)?(em|pt|px|%|vh|vw|dvh|lvh|svh|dvw|lvw|svw)$/;
  let counter = 0;

  function size(value: unknown): string | null {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return `${value}px`;
    if (typeof value === 'string' && cssUnits.test(value.trim())) return value.trim();
    return null;
  }

  function isObject(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  }

  function originOf(url: string): string | null {
    try {
      const origin = new URL(url).origin;
      return origin === 'null' ? null : origin;
    } catch {
      return null;
    }
  }

  /** `prefix.key=<JSON>` pairs, one level, as the upstream library writes its fragment. */
  function hashPairs(prefix: string, values: unknown): string[] {
    if (!isObject(values)) return [];
    return Object.keys(values)
      .filter((key) => !/__proto__|constructor|prototype/.test(key))
      .map(
        (key) => `${prefix}.${encodeURIComponent(key)}=${encodeURIComponent(JSON.stringify(values[key]) ?? 'null')}`,
      );
  }

  /** The old positional form: (domain, roomName, width, height, parentNode, configOverwrite, interfaceConfigOverwrite, noSSL, jwt, onload). */
  function positional(args: unknown[]): Options {
    const [roomName, width, height, parentNode, configOverwrite, interfaceConfigOverwrite, noSSL, jwt, onload] = args;
    return { roomName, width, height, parentNode, configOverwrite, interfaceConfigOverwrite, noSSL, jwt, onload };
  }

  class VideoMeetExternalAPI {
    private readonly iframe: HTMLIFrameElement;
    private readonly listeners = new Map<string, Listener[]>();
    private readonly allowed: Set<string>;
    private readonly pending = new Map<number, Pending>();
    private readonly queue: object[] = [];
    private readonly onload: (() => void) | null;
    private targetOrigin: string | null = null;
    private readonly receive: (event: MessageEvent) => void;
    private ready = false;
    private disposed = false;
    private nextId = 1;

    constructor(domain: unknown, ...rest: unknown[]) {
      const options: Options =
        rest.length === 0 || isObject(rest[0]) ? ((rest[0] as Options | undefined) ?? {}) : positional(rest);
      if (typeof domain !== 'string' || domain.trim() === '' || /[\s?#@\\]/.test(domain)) {
        throw new TypeError(
          'VideoMeetExternalAPI: the first argument must be the service domain, such as "meet.example.org".',
        );
      }
      const roomName = typeof options.roomName === 'string' ? options.roomName.trim() : '';
      const parts = roomName.split('/').filter((p) => p !== '');
      if (parts.length < 1 || parts.length > 2)
        throw new TypeError('VideoMeetExternalAPI: roomName must be "room" or "tenant/room".');
      const protocol = options.noSSL === true ? 'http:' : scheme;
      const base = `${protocol}//${domain.replace(/\/+$/, '')}`;
      const room = parts[parts.length - 1]!;
      const path = `${parts.length === 2 ? `/${encodeURIComponent(parts[0]!)}` : ''}/videoconf/${encodeURIComponent(room)}`;
      const url = new URL(base + path);
      if (typeof options.jwt === 'string' && options.jwt !== '') url.searchParams.set('jwt', options.jwt);
      const lang =
        typeof options.lang === 'string'
          ? options.lang
          : isObject(options.configOverwrite)
            ? options.configOverwrite.defaultLanguage
            : undefined;
      if (typeof lang === 'string' && lang !== '') url.searchParams.set('lang', lang);
      const parentOrigin = window.location.origin;
      const hash = [
        `embed.parentOrigin=${encodeURIComponent(JSON.stringify(parentOrigin))}`,
        `embed.roomName=${encodeURIComponent(JSON.stringify(room.toLowerCase()))}`,
        ...hashPairs('config', options.configOverwrite),
        ...hashPairs('interfaceConfig', options.interfaceConfigOverwrite),
        ...hashPairs('devices', options.devices),
        ...hashPairs('userInfo', options.userInfo),
      ];
      url.hash = hash.join('&');

      this.targetOrigin = originOf(url.href);
      this.allowed = new Set([this.targetOrigin, originOf(bakedPageOrigin)].filter((o): o is string => o !== null));
      this.onload = typeof options.onload === 'function' ? (options.onload as () => void) : null;

      const id = counter++;
      const iframe = document.createElement('iframe');
      iframe.name = `jitsiConferenceFrame${id}`;
      iframe.id = `jitsiConferenceFrame${id}`;
      // The frame opens the gateway, which redirects to the meeting page's origin (the baked
      // COMPAT_FRONTEND_URL): a bare feature name would grant the gateway's origin alone, and
      // the page, on another origin, would find camera and microphone refused.
      const origins = [...this.allowed].join(' ');
      iframe.allow = ['camera', 'microphone', 'display-capture', 'autoplay', 'clipboard-write', 'fullscreen']
        .map((f) => `${f} 'src' ${origins}`)
        .join('; ');
      iframe.setAttribute('allowfullscreen', 'true');
      iframe.style.border = '0';
      iframe.style.width = size(options.width) ?? '100%';
      iframe.style.height = size(options.height) ?? '100%';
      this.iframe = iframe;

      this.receive = (event: MessageEvent) => this.onMessage(event);
      window.addEventListener('message', this.receive);
      iframe.src = url.href;
      const parent = options.parentNode instanceof Element ? options.parentNode : document.body;
      parent.appendChild(iframe);
    }

    private onMessage(event: MessageEvent): void {
      // Only our own iframe, and only while it shows one of the service's pages.
      if (this.disposed || event.source !== this.iframe.contentWindow || !this.allowed.has(event.origin)) return;
      const data: unknown = event.data;
      if (!isObject(data)) return;
      if (data.type === 'errorOccurred' && isObject(data.error)) {
        // Flat, as the embedded client sends it: {name, message, type, isFatal}.
        const { name, message, isFatal } = data.error;
        const said = (v: unknown) => (typeof v === 'string' ? v : '');
        this.tellListeners('errorOccurred', {
          name: said(name),
          message: said(message),
          type: 'CONNECTION',
          isFatal: isFatal === true,
        });
        return;
      }
      if (data.videomeet !== envelope) return;
      if (data.kind === 'ready') {
        if (this.ready) return;
        this.ready = true;
        // The page may have been redirected to the service's meeting origin: answer it there.
        this.targetOrigin = event.origin;
        for (const message of this.queue.splice(0)) this.post(message);
        this.tellListeners('ready', {});
        try {
          this.onload?.();
        } catch (err) {
          console.error(err);
        }
        return;
      }
      if (data.kind === 'event' && typeof data.name === 'string' && events.includes(data.name)) {
        this.tellListeners(data.name, isObject(data.data) ? data.data : {});
        return;
      }
      if (data.kind === 'response' && typeof data.id === 'number') {
        const waiting = this.pending.get(data.id);
        if (!waiting) return;
        this.pending.delete(data.id);
        window.clearTimeout(waiting.timer);
        if (typeof data.error === 'string') waiting.reject(new Error(data.error));
        else waiting.resolve(data.result);
      }
    }

    private post(message: object): void {
      if (!this.ready || this.targetOrigin === null) {
        this.queue.push(message);
        return;
      }
      this.iframe.contentWindow?.postMessage(message, this.targetOrigin);
    }

    private tellListeners(name: string, data: unknown): void {
      for (const listener of [...(this.listeners.get(name) ?? [])]) {
        try {
          listener(data);
        } catch (err) {
          console.error(err);
        }
      }
    }

    private request(name: string, ...args: unknown[]): Promise<unknown> {
      if (this.disposed) return Promise.reject(new Error('This meeting frame was disposed.'));
      const id = this.nextId++;
      return new Promise((resolve, reject) => {
        const timer = window.setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`The meeting did not answer ${name} in time.`));
        }, requestTimeoutMs);
        this.pending.set(id, { resolve, reject, timer });
        this.post({ videomeet: envelope, kind: 'request', id, name, args });
      });
    }

    executeCommand(name: string, ...args: unknown[]): void {
      if (this.disposed) return;
      if (typeof name === 'string' && unsupportedCommands.includes(name)) return notSupported(name);
      if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(commands, name)) {
        console.warn(`VideoMeetExternalAPI: "${String(name)}" is not a supported command; nothing was sent.`);
        return;
      }
      this.post({ videomeet: envelope, kind: 'command', name, args });
    }

    /** Each value is passed as one argument, as upstream does (an array is not spread). */
    executeCommands(map: unknown): void {
      if (!isObject(map)) return;
      for (const name of Object.keys(map)) this.executeCommand(name, map[name]);
    }

    getSupportedCommands(): string[] {
      return [...Object.keys(commands), ...unsupportedCommands];
    }

    getSupportedEvents(): string[] {
      return [...events];
    }

    getNumberOfParticipants(): Promise<unknown> {
      return this.request('getNumberOfParticipants');
    }

    getParticipantsInfo(): Promise<unknown> {
      return this.request('getParticipantsInfo');
    }

    getRoomsInfo(): Promise<unknown> {
      return this.request('getRoomsInfo');
    }

    isAudioMuted(): Promise<unknown> {
      return this.request('isAudioMuted');
    }

    isVideoMuted(): Promise<unknown> {
      return this.request('isVideoMuted');
    }

    isSharingScreen(): Promise<unknown> {
      return this.request('isSharingScreen');
    }

    getDisplayName(id: unknown): Promise<unknown> {
      return this.request('getDisplayName', id);
    }

    getIFrame(): HTMLIFrameElement {
      return this.iframe;
    }

    addListener(name: string, listener: Listener): this {
      if (typeof name !== 'string' || typeof listener !== 'function') return this;
      this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
      return this;
    }

    on(name: string, listener: Listener): this {
      return this.addListener(name, listener);
    }

    addEventListener(name: string, listener: Listener): this {
      return this.addListener(name, listener);
    }

    once(name: string, listener: Listener): this {
      const wrapper: Listener = (data) => {
        this.removeListener(name, wrapper);
        listener(data);
      };
      return this.addListener(name, wrapper);
    }

    addEventListeners(map: unknown): void {
      if (!isObject(map)) return;
      for (const name of Object.keys(map)) this.addListener(name, map[name] as Listener);
    }

    removeListener(name: string, listener?: Listener): this {
      const list = this.listeners.get(name);
      if (!list) return this;
      // Without a function, as upstream's removeEventListener: every listener of the event.
      const kept = listener ? list.filter((l) => l !== listener) : [];
      if (kept.length > 0) this.listeners.set(name, kept);
      else this.listeners.delete(name);
      return this;
    }

    off(name: string, listener?: Listener): this {
      return this.removeListener(name, listener);
    }

    removeEventListener(name: string, listener?: Listener): this {
      return this.removeListener(name, listener);
    }

    removeEventListeners(names: unknown): void {
      if (Array.isArray(names)) for (const name of names) if (typeof name === 'string') this.removeListener(name);
    }

    removeAllListeners(name?: string): this {
      if (typeof name === 'string') this.listeners.delete(name);
      else this.listeners.clear();
      return this;
    }

    listenerCount(name: string): number {
      return this.listeners.get(name)?.length ?? 0;
    }

    /** The rest of the EventEmitter the embedded client is: listeners of this page only, nothing reaches the meeting. */
    emit(name: string, data?: unknown): boolean {
      this.tellListeners(name, data);
      return this.listenerCount(name) > 0;
    }

    eventNames(): string[] {
      return [...this.listeners.keys()];
    }

    rawListeners(name: string): Listener[] {
      return [...(this.listeners.get(name) ?? [])];
    }

    prependListener(name: string, listener: Listener): this {
      if (typeof listener === 'function') this.listeners.set(name, [listener, ...(this.listeners.get(name) ?? [])]);
      return this;
    }

    setMaxListeners(): this {
      return this;
    }

    getMaxListeners(): number {
      return 0;
    }

    /** Removes the iframe (which closes the page's live connection) and forgets every listener. */
    dispose(): void {
      if (this.disposed) return;
      this.disposed = true;
      window.removeEventListener('message', this.receive);
      this.listeners.clear();
      this.queue.length = 0;
      for (const [id, waiting] of this.pending) {
        window.clearTimeout(waiting.timer);
        waiting.reject(new Error('This meeting frame was disposed.'));
        this.pending.delete(id);
      }
      this.iframe.remove();
    }
  }

  const prototype = VideoMeetExternalAPI.prototype as unknown as Record<string, unknown>;
  type Requester = { request: (name: string, ...args: unknown[]) => Promise<unknown> };
  // set*Device(label, deviceId): the page finds the device by id, else by label, and uses it as her own choice.
  for (const [name, kind] of Object.entries(deviceSetters))
    prototype[name] = function (this: Requester, label: unknown, id?: unknown) {
      return this.request('setDevice', { kind, label, id });
    };
  // Deprecated upstream, where it always resolves true.
  prototype.isDeviceListAvailable = () => Promise.resolve(true);
  for (const name of pageRequests)
    prototype[name] ??= function (this: Requester, ...args: unknown[]) {
      return this.request(name, ...args);
    };
  for (const [name, { answer, promise }] of Object.entries(unsupportedAnswers))
    prototype[name] ??= () => {
      notSupported(name);
      return promise ? Promise.resolve(answer) : answer;
    };

  const w = window as unknown as Record<string, unknown>;
  w.VideoMeetExternalAPI = VideoMeetExternalAPI;
  // The name the upstream SDKs look for: an app that only changes its domain finds it.
  w.JitsiMeetExternalAPI = VideoMeetExternalAPI;
})();
