// Person segmentation runs in the page with the model and wasm that ship in
// @mediapipe/selfie_segmentation, served by the daemon under /assets/vendor/selfie/.

export type Background = 'none' | 'blur' | 'image';

interface Segmenter {
  onResults(listener: (results: { image: CanvasImageSource; segmentationMask: CanvasImageSource }) => void): void;
  setOptions(options: { modelSelection?: number; selfieMode?: boolean }): void;
  initialize(): Promise<void>;
  send(inputs: { image: HTMLVideoElement }): Promise<void>;
  close(): Promise<void>;
}

declare global {
  interface Window {
    SelfieSegmentation?: new (config: { locateFile: (file: string) => string }) => Segmenter;
  }
}

const vendor = '/assets/vendor/selfie/';
/**
 * Segmentation is the page's heaviest work. At most 10 frames a second, and after each frame
 * a pause at least as long as the frame took: a slow machine gets fewer frames, never a page
 * too busy to poll (a waiting request that stops polling is taken for a closed window).
 */
const frameIntervalMs = 100;
let loading: Promise<void> | null = null;

function loadSegmenterScript(): Promise<void> {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = `${vendor}selfie_segmentation.js`;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error('the segmentation model could not be loaded'));
    document.head.append(script);
  });
  return loading;
}

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error(`cannot load ${src}`));
    image.src = src;
  });
}

/**
 * Draws the camera onto a canvas with the background blurred or replaced, frame by frame,
 * and offers the canvas as a video track. `stop()` ends the loop and the segmenter.
 */
export class BackgroundProcessor {
  readonly canvas = document.createElement('canvas');
  private segmenter: Segmenter | null = null;
  private running = false;
  private backdrop: HTMLImageElement | null = null;

  constructor(
    private readonly source: HTMLVideoElement,
    private mode: Exclude<Background, 'none'>,
  ) {
    this.canvas.width = 640;
    this.canvas.height = 480;
  }

  setMode(mode: Exclude<Background, 'none'>): void {
    this.mode = mode;
  }

  async start(): Promise<MediaStreamTrack> {
    await loadSegmenterScript();
    if (!window.SelfieSegmentation) throw new Error('the segmentation model did not register');
    this.backdrop = await loadImage('/assets/web/static/backdrop.svg');
    const segmenter = new window.SelfieSegmentation({ locateFile: (file) => `${vendor}${file}` });
    segmenter.setOptions({ modelSelection: 1 });
    segmenter.onResults((results) => this.draw(results));
    await segmenter.initialize();
    this.segmenter = segmenter;
    this.running = true;
    void this.loop();
    const track = this.canvas.captureStream(1000 / frameIntervalMs).getVideoTracks()[0];
    if (!track) throw new Error('the canvas gave no video track');
    return track;
  }

  private async loop(): Promise<void> {
    while (this.running && this.segmenter) {
      const started = performance.now();
      if (this.source.readyState >= 2) await this.segmenter.send({ image: this.source });
      const took = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, Math.max(frameIntervalMs, took)));
    }
  }

  private draw(results: { image: CanvasImageSource; segmentationMask: CanvasImageSource }): void {
    const ctx = this.canvas.getContext('2d');
    if (!ctx) return;
    const { width, height } = this.canvas;
    ctx.save();
    ctx.clearRect(0, 0, width, height);
    // Keep the person: the mask, then the camera image only where the mask is.
    ctx.drawImage(results.segmentationMask, 0, 0, width, height);
    ctx.globalCompositeOperation = 'source-in';
    ctx.drawImage(results.image, 0, 0, width, height);
    // Behind the person: the blurred camera image, or the backdrop picture.
    ctx.globalCompositeOperation = 'destination-over';
    if (this.mode === 'blur') {
      ctx.filter = 'blur(14px)';
      ctx.drawImage(results.image, 0, 0, width, height);
    } else if (this.backdrop) {
      ctx.drawImage(this.backdrop, 0, 0, width, height);
    }
    ctx.restore();
  }

  async stop(): Promise<void> {
    this.running = false;
    const segmenter = this.segmenter;
    this.segmenter = null;
    await segmenter?.close();
  }
}
