// Renderer entry: global styles and the app shell.
import { mount } from 'svelte';
import App from './App.svelte';
import './styles/app.css';

const target = document.getElementById('app');
if (target === null) throw new Error('index.html lacks #app');
mount(App, { target });
