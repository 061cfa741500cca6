import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.API_URL ?? 'http://localhost:3000';

export default defineConfig({
  plugins: [react()],
  server: { port: Number(process.env.WEB_PORT ?? 5173), proxy: { '/api': { target: api, changeOrigin: false } } },
  preview: { port: Number(process.env.WEB_PORT ?? 4173), proxy: { '/api': api } },
  build: { outDir: 'dist', sourcemap: true },
});
