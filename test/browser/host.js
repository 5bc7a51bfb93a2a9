// A minimal MCP Apps host page for the browser test and bench/player.mjs (bundled by esbuild at
// test time). As the MCP Apps spec asks of a web host, the view runs inside a sandbox proxy on
// another origin (sandbox="allow-scripts allow-same-origin"), which loads the resource's HTML into
// an inner iframe under a CSP built from its declared `_meta.ui.csp` and relays messages both
// ways. The host talks to the view through ext-apps' AppBridge; the view's tool calls go to the
// Node side (/call), which holds the real MCP client connected to our server.
//
// The session (/session) either carries the tool's result (the test made the call) or the call
// for the host to make itself (`call`, the bench): then, as a chat page already open, it waits
// for window.__start(), calls the tool and reads the resource side by side, and shows the view
// once the result is in (`viewAt: 'result'`) or at once (`viewAt: 'call'`, the spec's lifecycle,
// where the view gets the arguments first and the result when the tool is done).
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

async function main() {
  const session = await (await fetch('/session')).json();
  if (session.call) await new Promise((resolve) => (window.__start = resolve));
  window.__calledAt = Date.now();
  const post = (url, body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
  const result = session.call
    ? post('/call', session.call).then((answer) => {
        window.__resultAt = Date.now();
        return answer;
      })
    : Promise.resolve(session.result);
  const resource = session.call ? post('/resource', { uri: session.resourceUri }) : Promise.resolve({ html: session.html, csp: session.csp });
  if (session.viewAt !== 'call') await result;
  const { html, csp } = await resource;

  const proxy = document.createElement('iframe');
  proxy.id = 'sandbox';
  proxy.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  proxy.title = 'session recording player';
  document.getElementById('chat').append(proxy);

  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {}, openLinks: {} }, {
    hostContext: { theme: session.theme, displayMode: 'inline', platform: 'web', containerDimensions: { maxWidth: session.width } },
  });
  bridge.oncalltool = async (params) => post('/call', params);
  bridge.onopenlink = async ({ url }) => {
    window.__opened = [...(window.__opened ?? []), url];
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) proxy.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onsandboxready = () => {
    bridge.sendSandboxResourceReady({ html, csp });
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: session.arguments });
    // A test may hold the result back, as a host does while the tool runs, until window.__release().
    if (session.holdResult) await new Promise((resolve) => (window.__release = resolve));
    await bridge.sendToolResult(await result);
  };
  window.__bridge = bridge; // for a test to speak to the view as the host (e.g. teardown)
  await bridge.connect(new PostMessageTransport(proxy.contentWindow, proxy.contentWindow));
  proxy.src = session.sandboxUrl;
}

main().catch((error) => {
  document.body.dataset.error = String(error && error.stack ? error.stack : error);
});
