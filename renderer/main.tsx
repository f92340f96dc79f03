import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { selectBridge } from './bridge/select-bridge';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
void selectBridge().then((bridge) =>
  createRoot(root).render(
    <StrictMode>
      <App bridge={bridge} />
    </StrictMode>,
  ),
);
