import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import 'primereact/resources/themes/lara-light-blue/theme.css';
import 'primeicons/primeicons.css';
import './styles/app.css';
import { LAYOUT } from '@centralita/contracts';
import { App } from './app/App';
import { createAppServices } from './app/services';

// Layout sizes are contracts (spec §9): CSS reads them from here rather than repeating them.
const root = document.documentElement;
root.style.setProperty('--header-height', `${LAYOUT.headerHeight}px`);
root.style.setProperty('--sidebar-width', `${LAYOUT.sidebarWidth}px`);
root.style.setProperty('--sidebar-compact-width', `${LAYOUT.sidebarCompactWidth}px`);

const services = createAppServices();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App services={services} />
  </StrictMode>,
);
