/**
 * Icons for clients that show them (MCP 2025-11-25 `icons`): the server, its prompts and its
 * resources. Our own drawings, inline as data: URIs, so a client never fetches anything to show
 * them and they work offline. Tools carry none: tools/list has a size budget.
 */
export interface Icon {
  src: string;
  mimeType: string;
  sizes: string[];
}

function svg(body: string): Icon[] {
  const markup = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1d4aff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;
  return [{ src: `data:image/svg+xml;base64,${Buffer.from(markup).toString('base64')}`, mimeType: 'image/svg+xml', sizes: ['any'] }];
}

/** A rewind arrow around a play triangle: replays. */
export const SERVER_ICONS = svg('<path d="M3 12a9 9 0 1 0 3-6.7"/><path d="M3 3v5h5"/><path d="M10 8.5v7l6-3.5z" fill="#f9bd2b"/>');
/** A play triangle in a frame: one recording. */
export const RECORDING_ICONS = svg('<rect x="2" y="4" width="20" height="16" rx="2"/><path d="M10 9v6l5-3z" fill="#f9bd2b"/>');
/** Lines of text: a recording's digest. */
export const DIGEST_ICONS = svg('<rect x="4" y="3" width="16" height="18" rx="2"/><path d="M8 8h8M8 12h8M8 16h5"/>');
/** A grid of four: a project. */
export const PROJECT_ICONS = svg('<rect x="3" y="3" width="7" height="7" rx="1"/><rect x="14" y="3" width="7" height="7" rx="1"/><rect x="3" y="14" width="7" height="7" rx="1"/><rect x="14" y="14" width="7" height="7" rx="1"/>');
/** A magnifier: look into one recording. */
export const INVESTIGATE_ICONS = svg('<circle cx="11" cy="11" r="7"/><path d="m20 20-3.5-3.5"/>');
/** Stacked warnings: what broke across many. */
export const TRIAGE_ICONS = svg('<path d="M12 3 2 20h20z"/><path d="M12 10v4M12 17h.01"/>');
/** A slider: settings. */
export const SETUP_ICONS = svg('<path d="M4 6h10M18 6h2M4 12h4M12 12h8M4 18h12M20 18h0"/><circle cx="16" cy="6" r="2"/><circle cx="10" cy="12" r="2"/><circle cx="18" cy="18" r="2"/>');
