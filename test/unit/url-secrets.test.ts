import { describe, expect, it } from 'vitest';
import { isSecretParam, maskSecretsInBody, maskUrlSecrets, maskUrlSecretsInText } from '../../src/url-secrets.js';

describe('maskUrlSecrets', () => {
  it('masks the values of secret-named query and fragment parameters, keeping their names and the rest', () => {
    expect(maskUrlSecrets('https://shop.test/reset?token=9f8e7d6c&lang=en')).toBe('https://shop.test/reset?token=***&lang=en');
    expect(maskUrlSecrets('https://app.test/callback#access_token=eyJhbGciOi.x.y&token_type=bearer&expires_in=3600')).toBe('https://app.test/callback#access_token=***&token_type=***&expires_in=3600');
    expect(maskUrlSecrets('/oauth/callback?code=4/0AX4&state=abc')).toBe('/oauth/callback?code=***&state=abc');
    expect(maskUrlSecrets('https://b.s3.test/f.pdf?X-Amz-Credential=AKIA%2F1&X-Amz-Signature=ab12&X-Amz-Expires=60')).toBe('https://b.s3.test/f.pdf?X-Amz-Credential=***&X-Amz-Signature=***&X-Amz-Expires=60');
    expect(maskUrlSecrets('https://maps.test/js?key=AIzaSy123&callback=init')).toBe('https://maps.test/js?key=***&callback=init');
    expect(maskUrlSecrets('/invite?email=ada%40example.com&apiKey=k1&clientSecret=s1&pwd=hunter2')).toBe('/invite?email=***&apiKey=***&clientSecret=***&pwd=***');
    // A hash router's query, and `;` separators.
    expect(maskUrlSecrets('https://a.test/#/login?session_id=77&next=/home')).toBe('https://a.test/#/login?session_id=***&next=/home');
    expect(maskUrlSecrets('/x;jsessionid=ABC;other=1')).toBe('/x;jsessionid=***;other=1');
  });

  it('leaves URLs without secrets as they are (the same string)', () => {
    for (const url of ['https://shop.test/checkout', 'https://shop.test/search?q=shoes&page=2', '/a?empty_token=&x=1', 'https://a.test/#section-2', 'not a url ?', '']) {
      expect(maskUrlSecrets(url)).toBe(url);
    }
  });

  it('reads parameter names in any case and form', () => {
    for (const name of ['token', 'TOKEN', 'access_token', 'accessToken', 'refresh-token', 'x-api-key', 'api_key', 'Signature', 'sig', 'password', 'otp', 'user%5Bemail%5D', 'auth']) expect(isSecretParam(name), name).toBe(true);
    for (const name of ['q', 'page', 'lang', 'utm_source', 'state', 'next', 'redirect_uri', 'expires_in', 'keyboard', 'tokenize']) expect(isSecretParam(name), name).toBe(false);
  });

  it('is linear on long and hostile input', () => {
    const long = `https://a.test/?${'a=1&'.repeat(50_000)}token=zzz`;
    expect(maskUrlSecrets(long).endsWith('token=***')).toBe(true);
    expect(maskUrlSecrets(`?${'='.repeat(100_000)}`)).toBe(`?${'='.repeat(100_000)}`);
  });

  it('masks them inside free text too, and leaves text without them as it is', () => {
    expect(maskUrlSecretsInText('GET https://a.test/me?access_token=abc&v=2 failed; retry with ?page=3')).toBe('GET https://a.test/me?access_token=***&v=2 failed; retry with ?page=3');
    expect(maskUrlSecretsInText('fetch /x?email=ada%40example.com → 500')).toBe('fetch /x?email=*** → 500');
    for (const plain of ['TypeError: x is undefined', 'a=b is fine', 'count=3&size=4']) expect(maskUrlSecretsInText(plain)).toBe(plain);
  });

  it('masks parameters of a URL carried in another URL, plain or percent-encoded once or twice, and the password of user:password@', () => {
    expect(maskUrlSecrets('https://a.test/login?next=/reset?token=T1&lang=en')).toBe('https://a.test/login?next=/reset?token=***&lang=en');
    expect(maskUrlSecrets('https://a.test/login?next=%2Freset%3Ftoken%3DT2%26lang%3Den')).toBe('https://a.test/login?next=%2Freset%3Ftoken%3D***%26lang%3Den');
    expect(maskUrlSecrets('/go?u=https%253A%252F%252Fb.test%252Fcb%253Fcode%253DT3%2526state%253Dx&v=1')).toBe('/go?u=https%253A%252F%252Fb.test%252Fcb%253Fcode%253D***%2526state%253Dx&v=1');
    // A secret's own value keeps what is encoded in it: `%26` inside a plain `token=` is part of it.
    expect(maskUrlSecrets('/r?token=ab%26cd&x=1')).toBe('/r?token=***&x=1');
    expect(maskUrlSecrets('https://admin:hunter2@db.test/x?q=1')).toBe('https://admin:***@db.test/x?q=1');
    expect(maskUrlSecretsInText('GET wss://bot:T4@chat.test/ws failed; see /login?next=%2Fme%3Faccess_token%3DT5')).toBe('GET wss://bot:***@chat.test/ws failed; see /login?next=%2Fme%3Faccess_token%3D***');
    for (const name of ['hmac', 'oauth_verifier', 'code_verifier', 'ticket', 'tok%2565n']) expect(isSecretParam(name), name).toBe(true);
    // `code` is a secret (OAuth's, a verification code) unless it names an error, a status or a place.
    for (const name of ['code', 'auth_code', 'verificationCode', 'invite-code', 'promo_code']) expect(isSecretParam(name), name).toBe(true);
    for (const name of ['error_code', 'statusCode', 'http_code', 'country_code', 'zip-code', 'currency_code', 'lang_code']) expect(isSecretParam(name), name).toBe(false);
    expect(maskUrlSecrets('/oops?error_code=E_CARD_DECLINED&code=abc')).toBe('/oops?error_code=E_CARD_DECLINED&code=***');
  });

  it('leaves alone what only looks like those forms', () => {
    for (const url of ['https://a.test/@ada/profile', 'https://a.test:8080/x?next=/home?tab=2', 'mailto:ada@example.com', 'https://a.test/x?q=50%25%3D%3Dhalf', 'https://a.test/?a%3Db']) {
      expect(maskUrlSecrets(url)).toBe(url);
    }
  });

  it('stays linear on hostile encoded input', () => {
    const deep = `?a${'%25'.repeat(50_000)}3Dtoken%3Dx`;
    expect(maskUrlSecrets(deep)).toBe(deep);
    const many = `?${'x%3F'.repeat(30_000)}token%3DS`;
    expect(maskUrlSecrets(many).endsWith('token%3D***')).toBe(true);
    // No user:password of a length a URL has: left as it is, and read once.
    const at = `https://${'a:'.repeat(30_000)}@`;
    expect(maskUrlSecretsInText(at)).toBe(at);
  });

  it('masks a token written as a path segment after a segment naming what the link is for, and a JWT anywhere in a path', () => {
    expect(maskUrlSecrets('https://a.test/reset/9f8e7d6c5b4a39281716')).toBe('https://a.test/reset/***');
    expect(maskUrlSecrets('https://a.test/users/password/reset/Ab12Cd34Ef56Gh78/edit?lang=en')).toBe('https://a.test/users/password/reset/***/edit?lang=en');
    expect(maskUrlSecrets('/invitations/4f1c2a3b-1d2e-4f5a-8b9c-0d1e2f3a4b5c/accept')).toBe('/invitations/***/accept');
    expect(maskUrlSecrets('https://a.test/api/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln/me')).toBe('https://a.test/api/***/me');
    expect(maskUrlSecrets('https://a.test/#/auth/magic-link/Zz9Yy8Xx7Ww6Vv5U')).toBe('https://a.test/#/auth/magic-link/***');
    expect(maskUrlSecrets('/login?next=/account/confirm/8c1d2e3f4a5b6c7d8e9f')).toBe('/login?next=/account/confirm/***');
    expect(maskUrlSecretsInText('GET https://a.test/api/verify/8c1d2e3f4a5b6c7d8e9f failed (404)')).toBe('GET https://a.test/api/verify/*** failed (404)');
    // What such a segment is not: an id or a slug under another name, a short or wordy segment, a host name.
    for (const url of [
      'https://a.test/orders/4f1c2a3b-1d2e-4f5a-8b9c-0d1e2f3a4b5c',
      'https://a.test/products/light-wood-desk-lamp-2000',
      'https://a.test/verify/email',
      'https://a.test/reset/choose-a-new-password-here',
      'https://reset.example.com/some-long-path-2024/x',
    ]) expect(maskUrlSecrets(url)).toBe(url);
  });
});

describe('maskSecretsInBody', () => {
  it('masks secret-named fields (JSON, `name: value`, `name=value`), credentials and URLs, and leaves the server\'s other words as sent', () => {
    const plain = '{"error":"payment_intent_failed","message":"Upstream payment provider timed out","error_code":"E_UPSTREAM"}';
    expect(maskSecretsInBody(plain)).toBe(plain);
    expect(maskSecretsInBody('{"error":"expired","access_token":"abc123","code":123456,"session":{"id":"s1"},"user":{"email":"ada@example.com"}}')).toBe(
      '{"error":"expired","access_token":"***","code":***,"session":{"id":"s1"},"user":{"email":"***"}}',
    );
    expect(maskSecretsInBody("retry with token: 'q1w2e3r4' or apiKey=sk_live_123, see https://a.test/r?sig=zz&x=1")).toBe("retry with token: '***' or apiKey=***, see https://a.test/r?sig=***&x=1");
    expect(maskSecretsInBody('401: Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig rejected')).toBe('401: Authorization: Bearer *** rejected');
    expect(maskSecretsInBody('{"password":"hunter\\"2"}')).toBe('{"password":"***"}');
  });

  it('reads a bounded head of a body, in time linear in it, whatever its shape', () => {
    for (const hostile of ['a:'.repeat(500_000), '"a":"'.repeat(200_000), 'x'.repeat(1_000_000), `${'token='.repeat(100_000)}`, '{"k":'.repeat(200_000)]) {
      const started = performance.now();
      const masked = maskSecretsInBody(hostile);
      expect(performance.now() - started).toBeLessThan(500);
      expect(masked.length).toBeLessThanOrEqual(4_000);
    }
    // A secret field cut off by the bound is masked to its end.
    expect(maskSecretsInBody(`{"msg":"x","token":"${'t'.repeat(10_000)}"}`)).toBe('{"msg":"x","token":"***"');
  });
});
