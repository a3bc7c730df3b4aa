// Short notices shown in a live region ("Saved 12 documents", errors that need no decision).
export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
}

class Toasts {
  items = $state<Toast[]>([]);
  #next = 1;

  show(kind: Toast['kind'], text: string, ms = kind === 'error' ? 8000 : 4000): void {
    const id = this.#next++;
    this.items.push({ id, kind, text });
    setTimeout(() => this.dismiss(id), ms);
  }

  dismiss(id: number): void {
    this.items = this.items.filter((t) => t.id !== id);
  }
}

export const toasts = new Toasts();
