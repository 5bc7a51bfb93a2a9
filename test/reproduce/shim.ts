// A site that behaves as a recording shows, for a recording that has no site of its own (the
// sandbox's demo shop): each page rebuilt from the recording (rebuild.ts) as it was at the last
// step taken there, and a small shim script doing what the recording saw each step do: go to the
// page it led to, send the request it sent (answered with the recorded status, or 200 once
// "fixed"), log the console errors that followed (not once fixed). Forms never submit by
// themselves: the shim does what the recording says instead.
import type { RrwebEvent } from '../../src/posthog/snapshots.js';
import { renderSpec, type Rendered } from '../../src/reproduce/code.js';
import type { Step } from '../../src/reproduce/journey.js';
import { Reproducer } from '../../src/reproduce/session.js';
import { json, type Routes } from '../fixtures/sites/serve.js';
import { FullDom } from './rebuild.js';

type Windowed = { windowId: string | null; event: RrwebEvent };

interface StepBehaviour {
  navigates?: string;
  request?: { method: string; path: string; status: number };
  errors: string[];
}

/** The generated spec at the defaults, and the shim site's routes, bugged or fixed. */
export function shimSite(events: Windowed[], recordingId: string): { spec: Rendered; routes: (fixed: boolean, options?: { endElsewhere?: boolean }) => Routes } {
  const reproducer = new Reproducer();
  const doms = new Map<string | null, FullDom>();
  const paths = new Map<string | null, string>();
  /**
   * The page of each path as it was at the last step taken on it (what the page did after that
   * step, such as disabling a button while it sends, is the step's doing, not the page's state),
   * else as it was last seen.
   */
  const atStep = new Map<string, FullDom>();
  const seen = new Map<string, FullDom>();
  const steps = (reproducer as unknown as { steps: Step[] }).steps;
  for (const { windowId, event } of events) {
    let dom = doms.get(windowId);
    if (!dom) doms.set(windowId, (dom = new FullDom()));
    if (event.type === 4) {
      const path = paths.get(windowId);
      if (path !== undefined && dom.root !== undefined) seen.set(path, dom.clone());
      const href = (event.data as { href?: string } | undefined)?.href;
      try {
        paths.set(windowId, new URL(href ?? '').pathname);
      } catch {
        // a Meta without an address: the page stays where it was
      }
    }
    dom.apply(event);
    const before = steps.length;
    reproducer.push(windowId, event);
    const path = paths.get(windowId);
    if (path !== undefined && steps.length > before) atStep.set(path, dom.clone());
  }
  for (const [windowId, dom] of doms) {
    const path = paths.get(windowId);
    if (path !== undefined && dom.root !== undefined) seen.set(path, dom.clone());
  }
  const pages = new Map([...seen, ...atStep]);
  const rep = reproducer.finish();
  const spec = renderSpec(rep, { recordingId, projectId: '1', copyTypedValues: false });

  const behaviours: Record<string, StepBehaviour> = {};
  // Node ids restart with each page: the marks are per page.
  const marks = new Map<string, Map<number, string>>();
  const requests = new Map<string, number>();
  // The steps the test takes (it ends at the first failure; what the person did after is not replayed).
  rep.steps.slice(0, spec.steps.length).forEach((step, i) => {
    if (step.node === undefined || step.action === 'goto') return;
    const problems = rep.problems.filter((p) => p.step === i);
    // The journey's own request (a journey that went well is asserted on it too): sent as recorded.
    const journey = i === rep.steps.length - 1 && rep.problems.length === 0 ? rep.final?.request : undefined;
    const request = problems.find((p) => p.kind === 'request' && p.method && p.path) ?? (journey?.method ? journey : undefined);
    const behaviour: StepBehaviour = {
      ...(step.navigates !== undefined ? { navigates: step.navigates } : {}),
      ...(request ? { request: { method: request.method!, path: request.path!, status: request.status ?? 500 } } : {}),
      errors: problems.filter((p) => p.kind !== 'request').map((p) => p.text ?? 'error'),
    };
    if (request) requests.set(`${request.method} ${request.path}`, request.status ?? 500);
    behaviours[String(i)] = behaviour;
    const onPage = marks.get(step.path) ?? new Map<number, string>();
    onPage.set(step.node, String(i));
    marks.set(step.path, onPage);
  });
  const origin = rep.origin ?? undefined;

  const last = String(rep.steps.length - 1);
  const routes = (fixed: boolean, options: { endElsewhere?: boolean } = {}): Routes => {
    // A site where the journey's last step no longer leads where it did: a regression of a journey that went well.
    const steps = options.endElsewhere && behaviours[last] ? { ...behaviours, [last]: { ...behaviours[last], navigates: '/' } } : behaviours;
    const script = `
const shim = ${JSON.stringify({ steps, fixed }).replace(/</g, '\\u003c')};
document.addEventListener('submit', (event) => event.preventDefault(), true);
async function act(element, event) {
  const behaviour = shim.steps[element.getAttribute('data-shim-step')];
  if (!behaviour) return;
  if (behaviour.navigates !== undefined || behaviour.request) event.preventDefault();
  if (behaviour.request) await fetch(behaviour.request.path, { method: behaviour.request.method });
  if (!shim.fixed) for (const text of behaviour.errors) console.error(text);
  if (behaviour.navigates !== undefined) location.href = behaviour.navigates;
}
document.addEventListener('click', (event) => {
  const element = event.target.closest && event.target.closest('[data-shim-step]');
  if (element) act(element, event);
}, true);
document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && event.target.closest && event.target.closest('[data-shim-step]')) act(event.target.closest('[data-shim-step]'), event);
}, true);
`;
    const out: Routes = {};
    for (const [path, dom] of pages) {
      const html = dom.html(dom.root, { marks: marks.get(path) ?? new Map(), ...(origin ? { origin } : {}) });
      // The rebuilt document, with the shim after it (page() wraps a body; the rebuilt one is whole).
      out[`GET ${path}`] = { body: `<!doctype html>${html.replace(/<\/body>\s*<\/html>\s*$/i, '')}<script>${script}</script></body></html>` };
    }
    for (const [key, status] of requests) out[key] = fixed ? json(200, { ok: true }) : json(status, { error: 'as recorded' });
    return out;
  };
  return { spec, routes };
}
