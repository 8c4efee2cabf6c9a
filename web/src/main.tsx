import { render } from 'preact';
import { App } from './app.tsx';
import { initialToken } from './api.ts';
import './style.css';

render(<App initialToken={initialToken()} />, document.getElementById('app')!);
