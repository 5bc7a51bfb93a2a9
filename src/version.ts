/** Kept in step with package.json (a test checks it), so start-up needs no file read. */
export const PRODUCT_NAME = 'posthog-replay-mcp';
export const VERSION = '0.1.0';
export const USER_AGENT = `${PRODUCT_NAME}/${VERSION} (node ${process.version})`;
