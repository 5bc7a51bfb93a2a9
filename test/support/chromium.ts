// Debian's Chromium for the browser tests: where it is, whether it is there (a test file skips,
// saying so, when it is not), and the flags every test starts it with.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium as root needs --no-sandbox; the rest keep it off the network and quiet. */
export const CHROMIUM_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

/** The same for a persistent context, which takes headless as a flag. */
export const HEADLESS_FLAGS = ['--headless', ...CHROMIUM_FLAGS];

/** Whether Chromium is there; when it is not, says on stderr what is skipped and how to get it. */
export function chromiumPresent(skipped: string): boolean {
  const present = existsSync(CHROMIUM);
  if (!present) console.warn(`${skipped} skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  return present;
}

/**
 * Headless Chromium in a profile of its own (a temporary directory), 1000×900, with `args` after
 * the usual flags; close() ends it and removes the profile.
 */
export async function headlessContext(name: string, args: string[] = []): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), `${name}-chromium-`));
  const { chromium } = await import('playwright-core');
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: [...HEADLESS_FLAGS, ...args], viewport: { width: 1000, height: 900 } });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
