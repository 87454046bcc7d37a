import { displayUrl, isExposed, listenHost, probeUrl } from '../../scripts/lib/host.mjs';

// Issue 17 item 4: `npm start` listened on every interface, so anyone on the network reached the
// demo accounts (published password) and every development surface.
describe('npm start listen address', () => {
  it('is loopback unless HOST says otherwise', () => {
    expect(listenHost({})).toBe('127.0.0.1');
    expect(listenHost({ HOST: '' })).toBe('127.0.0.1');
    expect(listenHost({ HOST: '   ' })).toBe('127.0.0.1');
    expect(isExposed(listenHost({}))).toBe(false);
  });

  it('takes HOST when given, and knows when that exposes the server', () => {
    expect(listenHost({ HOST: '0.0.0.0' })).toBe('0.0.0.0');
    expect(isExposed('0.0.0.0')).toBe(true);
    expect(isExposed('::')).toBe(true);
    expect(isExposed('192.168.1.20')).toBe(true);
    expect(isExposed('::1')).toBe(false);
    expect(isExposed('127.0.0.2')).toBe(false);
  });

  it('prints and probes URLs that reach it', () => {
    expect(displayUrl('127.0.0.1', 3000)).toBe('http://localhost:3000');
    expect(probeUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(probeUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(probeUrl('::', 3000)).toBe('http://[::1]:3000');
    expect(displayUrl('192.168.1.20', 8080)).toBe('http://192.168.1.20:8080');
    expect(probeUrl('fd00::5', 8080)).toBe('http://[fd00::5]:8080');
  });
});
