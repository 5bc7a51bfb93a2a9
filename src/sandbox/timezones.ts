// PostHog accepts the timezones of docs/posthog-api.md, "Time zones"; the sandbox validates against the same
// list the tools offer (one copy, checked against that document by test/unit/timezones.test.ts).
export { TIMEZONES as SANDBOX_TIMEZONES, type Timezone as SandboxTimezone } from '../posthog/timezones.js';
