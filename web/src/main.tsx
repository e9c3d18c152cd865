import '@cds/city/css/bundles/default.min.css';
import '@cds/core/global.min.css';
import '@cds/core/table/table.min.css';
import './styles/base.css';
import './styles/shell.css';
import './styles/tables.css';
import './styles/forms.css';
import './styles/inventory.css';
import './styles/storage.css';
import './styles/charts.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { registerIcons } from './app/icons';

registerIcons();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
