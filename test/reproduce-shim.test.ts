// The sandbox's demo shop has no site of its own: its pages are rebuilt from the recordings with a
// small shim that behaves as each recording shows (test/reproduce/shim.ts). The spec written from
// a recording with a failure must fail there naming it and pass on the shop fixed; the one from a
// journey that went well must pass, and fail where the journey now ends elsewhere.
import { afterAll, describe, expect, it } from 'vitest';
import { RECORDING_SEEDS, type StoryName } from '../src/sandbox/demo/catalog.js';
import { buildScript } from '../src/sandbox/demo/dataset.js';
import type { RrwebEvent } from '../src/posthog/snapshots.js';
import { serveSite, type ServedSite } from './fixtures/sites/serve.js';
import { runSpec } from './reproduce/run-spec.js';
import { shimSite } from './reproduce/shim.js';
import { chromiumPresent } from './support/chromium.js';

const hasChromium = chromiumPresent('demo-shop reproduce runs');

function shop(name: StoryName) {
  const seed = RECORDING_SEEDS.find((s) => s.name === name)!;
  const events = buildScript({ ...seed, compressed: false }).events as Array<{ windowId: string | null; event: RrwebEvent }>;
  return shimSite(events, name);
}

describe.skipIf(!hasChromium)('generated tests on the demo shop rebuilt with a shim', () => {
  const sites: ServedSite[] = [];
  const serve = async (routes: Parameters<typeof serveSite>[0]) => {
    const site = await serveSite(routes);
    sites.push(site);
    return site;
  };
  afterAll(async () => {
    await Promise.all(sites.map((s) => s.close()));
  });

  it.each([
    ['checkoutFailure', 'POST /api/checkout answered 500 in the recording (step 18)'],
    ['searchRageClick', 'GET /api/search answered 503 in the recording (step 3)'],
  ] as const)('%s: fails on the shop as recorded naming the failure, passes on the shop fixed', async (name, says) => {
    const { spec, routes } = shop(name);
    expect(spec.asserts[0]!.says).toBe(says);
    const failing = await runSpec(spec, (await serve(routes(false))).url);
    expect(failing.status, spec.code).toBe('failed');
    expect(failing.message).toContain(says);
    const fixed = await serve(routes(true));
    const passing = await runSpec(spec, fixed.url);
    expect(passing, passing.message).toMatchObject({ status: 'passed' });
    expect(fixed.requests).toContain(says.split(' answered')[0]);
  }, 180_000);

  it('successfulPurchase: passes where the journey ends as recorded, fails where it now ends elsewhere', async () => {
    const { spec, routes } = shop('successfulPurchase');
    expect(spec.asserts.map((a) => [a.kind, a.says])).toEqual([
      ['final-request', "POST /api/checkout answered 200 in the recording: the journey's request must succeed"],
      ['final-url', 'the journey ends at /checkout/confirmation'],
      ['final-heading', 'a heading matching "^Thank you, .+$" is visible'],
    ]);
    const passing = await runSpec(spec, (await serve(routes(true))).url);
    expect(passing, passing.message).toMatchObject({ status: 'passed' });
    const failing = await runSpec(spec, (await serve(routes(true, { endElsewhere: true }))).url);
    expect(failing.status).toBe('failed');
    expect(failing.message).toContain('the journey ends at /checkout/confirmation');
  }, 180_000);
});
