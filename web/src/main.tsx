import { render } from 'preact';
import { App } from './app.tsx';
import { initialToken, setToken } from './api.ts';
import './style.css';

// Before the first render: children's effects (the first API calls) run before their parents'.
const token = initialToken();
setToken(token);
render(<App initialToken={token} />, document.getElementById('app')!);
