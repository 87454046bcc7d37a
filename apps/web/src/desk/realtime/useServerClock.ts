import { useEffect, useState } from 'react';
import { offsetFrom } from '../logic/time';
import type { DeskApi } from '../desk-api';

/** The offset of the server clock (GET /api/clock) and a once-a-second tick for live counters. */
export function useServerClock(api: DeskApi | null): { offset: number; now: number } {
  const [offset, setOffset] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!api) return;
    let live = true;
    api
      .clock()
      .then((reading) => {
        if (live) setOffset(offsetFrom(reading, Date.now()));
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [api]);
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return { offset, now };
}
