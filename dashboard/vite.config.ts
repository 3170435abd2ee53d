import { defineConfig } from 'vite';

// `npm run dev` serves the dashboard with hot reload and forwards the API (and the presence
// WebSocket) to a local playtrace node: PLAYTRACE_URL, default http://127.0.0.1:8080.
const api = process.env.PLAYTRACE_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
  server: {
    proxy: {
      '/v1': { target: api, ws: true, changeOrigin: true },
      '/healthz': api,
      '/openapi.json': api,
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    // One bundle for the app and one per large library keeps the first paint small and lets the
    // browser keep the libraries cached across releases.
    rollupOptions: {
      onwarn(warning, warn) {
        // React Router marks its modules "use client" for server components; a browser bundle
        // has no use for the directive.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
      output: {
        manualChunks(id: string) {
          if (id.includes('node_modules/chart.js')) return 'charts';
          if (id.includes('node_modules')) return 'vendor';
          return undefined;
        },
      },
    },
  },
});
