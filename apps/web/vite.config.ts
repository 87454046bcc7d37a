import { fileURLToPath, URL } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

const apiTarget = `http://127.0.0.1:${process.env.API_PORT ?? '3000'}`;
const proxy = {
  '/api': { target: apiTarget, changeOrigin: true },
  '/Session': { target: apiTarget, changeOrigin: true },
  '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
};

/**
 * PrimeReact's Lara theme hard-codes its blue palette. Rewriting those literals to the console's
 * CSS custom properties lets the eleven colour themes restyle PrimeReact components too, without
 * vendoring a 220 kB stylesheet. The `--blue-*` palette declarations are left untouched.
 */
function primeThemeVariables(): Plugin {
  const swaps: Array<[RegExp, string]> = [
    [/#3b82f6/gi, 'var(--primary)'],
    [/#2563eb/gi, 'var(--primary-hover)'],
    [/#1d4ed8/gi, 'var(--primary-strong)'],
    [/#bfdbfe/gi, 'var(--primary-ring)'],
    [/#eff6ff/gi, 'var(--primary-soft)'],
  ];
  return {
    name: 'centralita-prime-theme-variables',
    enforce: 'pre',
    transform(code, id) {
      if (!/primereact[\\/]resources[\\/]themes[\\/]lara-light-blue[\\/]theme\.css/.test(id)) return null;
      const out = code
        .split('\n')
        .map((line) => {
          if (/^\s*--blue-\d+\s*:/.test(line)) return line;
          let next = line.replace(
            /rgba\(59,\s*130,\s*246,\s*([0-9.]+)\)/g,
            (_m, alpha: string) => `color-mix(in srgb, var(--primary) ${Math.round(Number(alpha) * 100)}%, transparent)`,
          );
          for (const [pattern, replacement] of swaps) next = next.replace(pattern, replacement);
          return next;
        })
        .join('\n');
      return { code: out, map: null };
    },
  };
}

/**
 * widget.js runs as a classic script on tenants' pages: wrap it in a function so none of its
 * (minified) top-level names leak into the host page's globals.
 */
function isolateWidget(): Plugin {
  return {
    name: 'centralita-isolate-widget',
    generateBundle(_options, bundle) {
      const chunk = bundle['widget.js'];
      if (chunk && chunk.type === 'chunk') chunk.code = `(function(){${chunk.code}\n})();\n`;
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [primeThemeVariables(), react(), isolateWidget()],
  resolve: {
    alias: {
      '@centralita/contracts': fileURLToPath(new URL('../../libs/contracts/src/index.ts', import.meta.url)),
      // The console rebuilds machine snapshots to enable buttons exactly when the machine allows the event.
      '@centralita/domain': fileURLToPath(new URL('../../libs/domain/src/index.ts', import.meta.url)),
    },
  },
  server: {
    port: Number(process.env.WEB_PORT ?? 5173),
    strictPort: false,
    proxy,
  },
  preview: {
    port: Number(process.env.WEB_PORT ?? 4173),
    proxy,
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      // The embeddable web-chat launcher is a second, dependency-free entry with a stable name
      // (dist/widget.js) that tenants paste into their sites.
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        widget: fileURLToPath(new URL('./src/widget/embed.ts', import.meta.url)),
      },
      output: {
        entryFileNames: (chunk) => (chunk.name === 'widget' ? 'widget.js' : 'assets/[name]-[hash].js'),
      },
    },
  },
});
