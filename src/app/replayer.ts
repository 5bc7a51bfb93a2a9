/**
 * rrweb's replayer, in a script of its own after the player's (scripts/build-app.mjs): the
 * player's script connects to the host first, and the browser compiles this one while the host
 * answers. The player takes it from here when the first events arrive.
 */
import { Replayer } from 'rrweb';

(globalThis as { posthogReplayer?: typeof Replayer }).posthogReplayer = Replayer;
