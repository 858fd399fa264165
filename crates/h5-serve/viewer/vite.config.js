import { defineConfig } from 'vite';

// Relative asset URLs, so the page works wherever the router is mounted.
export default defineConfig({
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 8192 },
});
