import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The renderer is served by the tray (file://) and read-only by the headless relay at /ui.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../dist-renderer', emptyOutDir: true, sourcemap: true },
});
