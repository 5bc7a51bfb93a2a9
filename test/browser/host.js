// A minimal MCP Apps host page for the browser test (bundled by esbuild at test time). As the
// MCP Apps spec asks of a web host, the view runs inside a sandbox proxy on another origin
// (sandbox="allow-scripts allow-same-origin"), which loads the resource's HTML into an inner iframe
// under a CSP built from its declared `_meta.ui.csp` and relays messages both ways. The host talks
// to the view through ext-apps' AppBridge; the view's tool calls go to the test's Node side
// (/call), which holds the real MCP client connected to our server.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

async function main() {
  const session = await (await fetch('/session')).json();
  const proxy = document.createElement('iframe');
  proxy.id = 'sandbox';
  proxy.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  proxy.title = 'session recording player';
  document.getElementById('chat').append(proxy);

  const bridge = new AppBridge(null, { name: 'test-host', version: '1.0.0' }, { serverTools: {}, openLinks: {} }, {
    hostContext: { theme: session.theme, displayMode: 'inline', platform: 'web', containerDimensions: { maxWidth: session.width } },
  });
  bridge.oncalltool = async (params) => {
    const response = await fetch('/call', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
    return response.json();
  };
  bridge.onopenlink = async ({ url }) => {
    window.__opened = [...(window.__opened ?? []), url];
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    if (height) proxy.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onsandboxready = () => {
    bridge.sendSandboxResourceReady({ html: session.html, csp: session.csp });
  };
  bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: session.arguments });
    await bridge.sendToolResult(session.result);
  };
  await bridge.connect(new PostMessageTransport(proxy.contentWindow, proxy.contentWindow));
  proxy.src = session.sandboxUrl;
}

main().catch((error) => {
  document.body.dataset.error = String(error && error.stack ? error.stack : error);
});
