import { readFileSync, writeFileSync } from 'node:fs';
import type { RssReport } from './ipc.js';

const MB = 1024 * 1024;
const SAMPLE_EVERY_MS = 5;

/**
 * Peak RSS over a phase, two ways: a timer sampling `process.memoryUsage.rss()` (what the process can
 * see between tasks), and Linux's VmHWM, reset at the start of the phase by writing 5 to
 * /proc/self/clear_refs, which also counts memory that lived only inside one synchronous JSON.parse.
 */
export class RssProbe {
  private timer: NodeJS.Timeout | null = null;
  private beforeMb = 0;
  private peak = 0;
  private samples = 0;
  private kernelReset = false;

  start(): void {
    this.stop();
    this.kernelReset = resetKernelPeak();
    const rss = process.memoryUsage.rss();
    this.beforeMb = rss / MB;
    this.peak = rss;
    this.samples = 1;
    this.timer = setInterval(() => {
      this.peak = Math.max(this.peak, process.memoryUsage.rss());
      this.samples++;
    }, SAMPLE_EVERY_MS);
  }

  stop(): RssReport {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.peak = Math.max(this.peak, process.memoryUsage.rss());
    const kernelPeak = this.kernelReset ? readKernelPeakBytes() : null;
    return {
      type: 'rss',
      beforeMb: this.beforeMb,
      sampledPeakMb: this.peak / MB,
      samples: this.samples,
      kernelPeakMb: kernelPeak === null ? null : kernelPeak / MB,
    };
  }
}

function resetKernelPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return readKernelPeakBytes() !== null;
  } catch {
    return false;
  }
}

function readKernelPeakBytes(): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}
