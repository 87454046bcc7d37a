import { VIDEO_LIMITS } from '@centralita/contracts';

export interface ChunkSink {
  /** Uploads chunk `index`; retried by the caller's queue until it lands (the API is idempotent by index). */
  upload(index: number, blob: Blob): Promise<void>;
}

/** The first WebM type this browser's MediaRecorder takes (VP8 and Opus first: what every Chromium writes). */
export function recordingMimeType(): string | null {
  if (typeof MediaRecorder === 'undefined') return null;
  const candidates = ['video/webm;codecs=vp8,opus', 'video/webm;codecs=vp9,opus', 'video/webm'];
  return candidates.find((type) => MediaRecorder.isTypeSupported(type)) ?? null;
}

/**
 * Records both sides of a call in the agent's browser: the two videos side by side on a canvas,
 * and both voices mixed (Web Audio), into WebM cut every VIDEO_LIMITS.chunkIntervalMs. Each chunk
 * is uploaded in order as soon as it exists, so a closed tab loses seconds, not the call.
 */
export class CallRecorder {
  private readonly canvas = document.createElement('canvas');
  private readonly audio = new AudioContext();
  private readonly recorder: MediaRecorder;
  private readonly draw: ReturnType<typeof setInterval>;
  private index = 0;
  private queue: Promise<void> = Promise.resolve();
  private failed: unknown = null;

  constructor(
    remoteVideo: HTMLVideoElement,
    localVideo: HTMLVideoElement,
    streams: { remote: MediaStream; local: MediaStream },
    mimeType: string,
    private readonly sink: ChunkSink,
  ) {
    this.canvas.width = 1280;
    this.canvas.height = 360;
    const context = this.canvas.getContext('2d')!;
    // A timer, not requestAnimationFrame: a background tab must keep recording.
    this.draw = setInterval(() => {
      context.fillStyle = '#111';
      context.fillRect(0, 0, 1280, 360);
      if (remoteVideo.readyState >= 2) context.drawImage(remoteVideo, 0, 0, 640, 360);
      if (localVideo.readyState >= 2) context.drawImage(localVideo, 640, 0, 640, 360);
    }, 66);
    const mix = this.audio.createMediaStreamDestination();
    for (const stream of [streams.remote, streams.local]) {
      if (stream.getAudioTracks().length) this.audio.createMediaStreamSource(stream).connect(mix);
    }
    const video = this.canvas.captureStream(15).getVideoTracks();
    this.recorder = new MediaRecorder(new MediaStream([...video, ...mix.stream.getAudioTracks()]), { mimeType });
    this.recorder.ondataavailable = (event) => {
      if (!event.data.size) return;
      const index = this.index++;
      this.queue = this.queue.then(() => this.send(index, event.data));
    };
    this.recorder.start(VIDEO_LIMITS.chunkIntervalMs);
  }

  private async send(index: number, blob: Blob): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.sink.upload(index, blob);
        return;
      } catch (error) {
        if (attempt >= 5) {
          this.failed = error;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, attempt * 500));
      }
    }
  }

  /** Stops and waits for the last chunk to be uploaded; throws when a chunk could not be. */
  async stop(): Promise<void> {
    if (this.recorder.state !== 'inactive') {
      const stopped = new Promise((resolve) => this.recorder.addEventListener('stop', resolve, { once: true }));
      this.recorder.stop();
      await stopped;
    }
    clearInterval(this.draw);
    await this.queue;
    void this.audio.close();
    if (this.failed) throw this.failed;
  }
}
