import { announce } from './announce.js';
import { BackgroundProcessor, type Background } from './background.js';
import { button, el, field } from './dom.js';
import type { Outgoing } from './mesh.js';
import { storedGet, storedSet } from './stored.js';
import { fill, words } from './words/index.js';

const said = words.devices;

const storageKey = 'meet.devices';

interface Choices {
  camera: string;
  microphone: string;
  speaker: string;
  background: Background;
}

const backgrounds: readonly Background[] = ['none', 'blur', 'image'];

/** What an earlier visit stored; a field that is missing or not what this page writes is the default. */
function savedChoices(): Choices {
  const choices: Choices = { camera: '', microphone: '', speaker: '', background: 'none' };
  let saved: unknown;
  try {
    saved = JSON.parse(storedGet('local', storageKey) ?? '{}');
  } catch {
    return choices;
  }
  if (typeof saved !== 'object' || saved === null) return choices;
  const fields = saved as Record<string, unknown>;
  for (const key of ['camera', 'microphone', 'speaker'] as const) {
    const value = fields[key];
    if (typeof value === 'string') choices[key] = value;
  }
  const background = backgrounds.find((b) => b === fields.background);
  if (background) choices.background = background;
  return choices;
}

/**
 * The person's camera, microphone, speaker and background, chosen on the waiting screen and
 * carried into the meeting: `outgoing` is what peers receive.
 */
export class Devices {
  readonly choices: Choices = savedChoices();
  /** Raw camera and microphone. */
  raw: MediaStream | null = null;
  /** What the meeting sends: the processed video (when a background is set) and the microphone. */
  readonly outgoing = new MediaStream();
  readonly preview = el('video', {
    class: 'preview',
    autoplay: true,
    muted: true,
    playsinline: true,
    'aria-label': said.preview,
  });
  private readonly rawVideo = el('video', { autoplay: true, muted: true, playsinline: true, hidden: true });
  private processor: BackgroundProcessor | null = null;
  private audioContext: AudioContext | null = null;
  private meterTimer = 0;
  /** A copy of the microphone for the meter: muting the meeting disables the sent track, never this one, so "You are muted" hears her. */
  private meterTrack: MediaStreamTrack | null = null;
  private readonly meter = el('meter', { min: 0, max: 1, low: 0.25, high: 0.75, optimum: 0.5, value: 0 });
  private readonly selects = {
    camera: el('select'),
    microphone: el('select'),
    speaker: el('select'),
  };
  readonly problem = el('p', { class: 'error', role: 'alert', hidden: true });
  private listeners = new Set<() => void>();
  /** The meeting's media elements, played through the chosen speaker. */
  private readonly players = new Set<HTMLMediaElement>();
  /**
   * Whether her microphone and camera are on: the device check's two switches say it, and she
   * enters the meeting so (its buttons follow her tracks: `live`); the meeting keeps it current (`sending`).
   */
  private readonly wanted = { audio: true, video: true };
  private readonly switches = { audio: this.switchOf('audio'), video: this.switchOf('video') };

  constructor() {
    const { camera, microphone, speaker } = this.selects;
    camera.addEventListener('change', () => void this.choose('camera', camera.value));
    microphone.addEventListener('change', () => void this.choose('microphone', microphone.value));
    speaker.addEventListener('change', () => void this.choose('speaker', speaker.value));
    this.meter.setAttribute('aria-label', said.level);
  }

  /** Told whenever `outgoing` changes tracks (device or background switched); returns the way to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private started: Promise<void> | null = null;

  /** Opens the camera and microphone once (the arrival, the waiting screen and the meeting share them). */
  start(): Promise<void> {
    return (this.started ??= this.open().then(() => this.fillSelects()));
  }

  private async open(): Promise<void> {
    this.raw?.getTracks().forEach((track) => track.stop());
    try {
      this.raw = await navigator.mediaDevices.getUserMedia({
        audio: this.choices.microphone ? { deviceId: { exact: this.choices.microphone } } : true,
        video: this.choices.camera ? { deviceId: { exact: this.choices.camera } } : { width: 640, height: 480 },
      });
      this.problem.hidden = true;
    } catch (err) {
      this.raw = new MediaStream();
      this.problem.textContent = fill(said.unavailable, { reason: (err as Error).message });
      this.problem.hidden = false;
    }
    this.rawVideo.srcObject = this.raw;
    void this.rawVideo.play().catch(() => {});
    this.startMeter();
    await this.applyBackground();
  }

  private async fillSelects(): Promise<void> {
    const devices = await navigator.mediaDevices.enumerateDevices();
    const kinds: [keyof typeof this.selects, MediaDeviceKind][] = [
      ['camera', 'videoinput'],
      ['microphone', 'audioinput'],
      ['speaker', 'audiooutput'],
    ];
    for (const [name, kind] of kinds) {
      const select = this.selects[name];
      const options = devices
        .filter((d) => d.kind === kind)
        .map((d, i) =>
          el('option', { value: d.deviceId, text: d.label || fill(said[`${name}Number`], { number: i + 1 }) }),
        );
      select.replaceChildren(...(options.length ? options : [el('option', { value: '', text: said.default })]));
      if (this.choices[name]) select.value = this.choices[name];
    }
  }

  private startMeter(): void {
    window.clearInterval(this.meterTimer);
    this.meterTrack?.stop();
    const track = this.raw?.getAudioTracks()[0]?.clone();
    this.meterTrack = track ?? null;
    if (!track) return;
    this.audioContext ??= new AudioContext();
    const analyser = this.audioContext.createAnalyser();
    analyser.fftSize = 512;
    this.audioContext.createMediaStreamSource(new MediaStream([track])).connect(analyser);
    const samples = new Float32Array(analyser.fftSize);
    this.meterTimer = window.setInterval(() => {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const s of samples) sum += s * s;
      this.meter.value = Math.min(1, Math.sqrt(sum / samples.length) * 4);
    }, 100);
  }

  /** A switch of the device check (role switch, its name the device), its state in words beside it. */
  private switchOf(kind: 'audio' | 'video'): { row: HTMLElement; control: HTMLElement; state: HTMLElement } {
    const control = el(
      'button',
      { type: 'button', role: 'switch', 'aria-checked': 'true', class: 'switch' },
      el('span', { class: 'track', 'aria-hidden': 'true' }),
      kind === 'audio' ? said.microphone : said.camera,
    );
    const state = el('span', { class: 'switch-state', text: said.on });
    control.addEventListener('click', () => {
      this.wanted[kind] = !this.wanted[kind];
      this.applyWanted();
      const on = this.wanted[kind];
      announce(kind === 'audio' ? (on ? said.microphoneOn : said.microphoneOff) : on ? said.cameraOn : said.cameraOff);
    });
    return { row: el('div', { class: 'switch-row' }, control, state), control, state };
  }

  /** Her tracks and the switches as she wants them (after each change of device or background too). */
  private applyWanted(): void {
    for (const kind of ['audio', 'video'] as const) {
      const on = this.wanted[kind];
      const track = kind === 'audio' ? this.outgoing.getAudioTracks()[0] : this.outgoing.getVideoTracks()[0];
      if (track) track.enabled = on;
      this.switches[kind].control.setAttribute('aria-checked', String(on));
      this.switches[kind].state.textContent = on ? said.on : said.off;
    }
  }

  /** Whether she sends this kind now: a track that is live and not switched off. */
  live(kind: 'audio' | 'video'): boolean {
    const track = kind === 'audio' ? this.outgoing.getAudioTracks()[0] : this.outgoing.getVideoTracks()[0];
    return track !== undefined && track.readyState === 'live' && track.enabled;
  }

  /**
   * Her tracks as her buttons say: a muted microphone or an off camera is disabled and handed
   * to no sender, so nothing of it is sent; a shared screen goes out whatever the camera.
   */
  sending(audio: boolean, video: boolean, screen: MediaStreamTrack | null): Outgoing {
    const microphone = this.outgoing.getAudioTracks()[0] ?? null;
    const camera = this.outgoing.getVideoTracks()[0] ?? null;
    this.wanted.audio = audio;
    this.wanted.video = video;
    this.applyWanted();
    return { audio: audio ? microphone : null, video: screen ?? (video ? camera : null) };
  }

  /** Level of the microphone, 0 to 1, for speaking detection in the meeting: heard even while she is muted. */
  level(): number {
    return this.meter.value;
  }

  private async applyBackground(): Promise<void> {
    const camera = this.raw?.getVideoTracks()[0] ?? null;
    let video: MediaStreamTrack | null = camera;
    const mode = this.choices.background;
    if (camera && mode !== 'none') {
      try {
        if (!this.processor) {
          this.processor = new BackgroundProcessor(this.rawVideo, mode);
          video = await this.processor.start();
        } else {
          this.processor.setMode(mode);
          video = this.outgoing.getVideoTracks()[0] ?? (await this.processor.start());
        }
      } catch {
        // The reason is the page's own English (background.ts): she is told what is missing, in her language.
        this.problem.textContent = said.effectsUnavailable;
        this.problem.hidden = false;
        await this.processor?.stop();
        this.processor = null;
        video = camera;
      }
    } else if (this.processor) {
      await this.processor.stop();
      this.processor = null;
    }
    for (const track of this.outgoing.getTracks()) this.outgoing.removeTrack(track);
    for (const track of this.raw?.getAudioTracks() ?? []) this.outgoing.addTrack(track);
    if (video) this.outgoing.addTrack(video);
    this.applyWanted();
    this.preview.srcObject = video ? new MediaStream([video]) : null;
    void this.preview.play().catch(() => {});
    this.listeners.forEach((listener) => listener());
  }

  private save(): void {
    storedSet('local', storageKey, JSON.stringify(this.choices));
  }

  private async playTestSound(): Promise<void> {
    this.audioContext ??= new AudioContext();
    const context = this.audioContext;
    const destination = context.createMediaStreamDestination();
    const oscillator = context.createOscillator();
    oscillator.frequency.value = 660;
    oscillator.connect(destination);
    const player = new Audio();
    player.srcObject = destination.stream;
    const sink = player as HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };
    if (this.choices.speaker && sink.setSinkId) await sink.setSinkId(this.choices.speaker).catch(() => {});
    await player.play().catch(() => {});
    oscillator.start();
    oscillator.stop(context.currentTime + 0.6);
    announce(said.testSoundPlaying);
  }

  /**
   * The device check: the waiting screen's "your devices", the arrival's (so whoever enters
   * directly checks them too) and the meeting's devices dialog. The same controls each time,
   * moved to the screen that shows them. Before the meeting it has a switch for the microphone and
   * one for the camera, what she enters with; in the meeting (`switches: false`) her toolbar's buttons do that.
   */
  render({ switches = true }: { readonly switches?: boolean } = {}): HTMLElement {
    // A device plugged in since the last look is offered too.
    void this.fillSelects().catch(() => {});
    // A video taken out of the document pauses: moved to this screen, it plays on.
    void this.preview.play().catch(() => {});
    const backgrounds = el(
      'fieldset',
      {},
      el('legend', { text: said.background }),
      ...(['none', 'blur', 'image'] as const).map((value) => {
        const input = el('input', {
          type: 'radio',
          name: 'background',
          value,
          checked: this.choices.background === value,
        });
        input.addEventListener('change', () => void this.choose('background', value));
        return el('label', {}, input, ` ${said[value]}`);
      }),
    );
    return el(
      'section',
      { 'aria-labelledby': 'devices-heading', class: 'devices' },
      el('h2', { id: 'devices-heading', text: said.heading }),
      this.preview,
      this.rawVideo,
      switches ? el('div', { class: 'device-switches' }, this.switches.audio.row, this.switches.video.row) : null,
      this.problem,
      el('div', { class: 'field' }, el('span', { text: said.level, 'aria-hidden': 'true' }), this.meter),
      field(said.camera, this.selects.camera),
      field(said.microphone, this.selects.microphone),
      field(said.speaker, this.selects.speaker),
      button(said.playTestSound, () => void this.playTestSound()),
      backgrounds,
    );
  }

  /** Plays through the chosen speaker, now and after every change (the meeting's tiles). */
  playThrough(media: HTMLMediaElement | null): void {
    if (!media) return;
    this.players.add(media);
    void this.route(media);
  }

  private async route(media: HTMLMediaElement): Promise<void> {
    const sink = media as HTMLMediaElement & { setSinkId?: (id: string) => Promise<void> };
    if (sink.setSinkId && this.choices.speaker) await sink.setSinkId(this.choices.speaker).catch(() => {});
  }

  /** An embedding page's choice (setAudioInputDevice, …): as if she chose it in the list. */
  use(what: 'camera' | 'microphone' | 'speaker', deviceId: string): Promise<void> {
    this.selects[what].value = deviceId;
    return this.choose(what, deviceId);
  }

  private async choose(what: keyof Choices, value: string): Promise<void> {
    (this.choices as unknown as Record<string, string>)[what] = value;
    this.save();
    if (what === 'speaker') {
      for (const media of this.players) {
        if (media.isConnected) void this.route(media);
        else this.players.delete(media);
      }
    } else if (what === 'background') await this.applyBackground();
    else await this.open();
    announce(
      what === 'background'
        ? fill(said.backgroundChosen, { background: said[value as Background] })
        : said[`${what}Changed`],
    );
  }

  stop(): void {
    this.started = null;
    window.clearInterval(this.meterTimer);
    void this.processor?.stop();
    this.meterTrack?.stop();
    this.raw?.getTracks().forEach((track) => track.stop());
  }
}
