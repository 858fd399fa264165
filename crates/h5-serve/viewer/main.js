// The h5web app over the h5grove API that `h5 serve` mounts at `api/`, beside this page.
// The file to open is the page's `?file=` query parameter.
import '@h5web/app/styles.css';

import { App, H5GroveProvider } from '@h5web/app';
import { createElement as h, StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

const file = new URLSearchParams(window.location.search).get('file') || '';
const api = new URL('api', document.baseURI).href.replace(/\/$/, '');
document.title = file ? `${file} - h5 serve` : 'h5 serve';

createRoot(document.getElementById('root')).render(
  h(StrictMode, null, h(H5GroveProvider, { url: api, filepath: file }, h(App))),
);
