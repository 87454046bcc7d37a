import { readWebmTimeline, withDuration, WebmError } from './webm';
import { webmFixture as recording } from './webm-fixture';

describe('readWebmTimeline', () => {
  it('measures a live-stream recording (unknown-sized segment and clusters, no Duration) from its block timecodes', () => {
    const timeline = readWebmTimeline(recording(5_000));
    expect(timeline.declaredDurationMs).toBeNull();
    // Last video frame at 4983 ms (+33), last audio at 4980 (+20): 5016 ms.
    expect(timeline.durationMs).toBe(5016);
    expect(timeline.blocks).toBeGreaterThan(400);
  });

  it('reads a recording cut mid-block (a closed tab) up to its last whole block', () => {
    const whole = readWebmTimeline(recording(3_000));
    const cut = readWebmTimeline(recording(3_000, { cutLastBytes: 3 }));
    expect(cut.durationMs).toBeLessThanOrEqual(whole.durationMs);
    expect(cut.durationMs).toBeGreaterThan(2_900);
  });

  it('refuses bytes that are not WebM', () => {
    expect(() => readWebmTimeline(Buffer.from('not a video at all'))).toThrow(WebmError);
  });
});

describe('withDuration', () => {
  it('writes the measured Duration into Info, so the file reads back with it', () => {
    const patched = withDuration(recording(4_000));
    const timeline = readWebmTimeline(patched);
    // Last video frame at 3993 ms (+33).
    expect(timeline.declaredDurationMs).toBe(4026);
    expect(timeline.durationMs).toBe(4026);
  });

  it('grows a known Segment size by the bytes it adds', () => {
    const original = recording(2_000, { segmentSized: true });
    const patched = withDuration(original);
    // The Duration element is 11 bytes; Info's size field is rewritten on 8 bytes as it was.
    expect(patched.length).toBe(original.length + 11);
    const timeline = readWebmTimeline(patched);
    expect(timeline.layout.segmentSize).toBe(patched.length - (timeline.layout.segmentSizeAt + 8));
    // Last video frame at 1980 ms (+33).
    expect(timeline.declaredDurationMs).toBe(2013);
  });

  it('leaves a file that already declares its Duration alone', () => {
    const once = withDuration(recording(1_000));
    expect(withDuration(once)).toBe(once);
  });
});
