import { useCallback, useRef, useState } from 'preact/hooks';

/**
 * Keeps the newest content in view unless the reader scrolled up. It follows the content's size
 * (a ResizeObserver, told after layout, so nothing reads the layout in between), so content drawn
 * over several frames is followed too. Only a scroll upwards lets go: content growing below
 * never does. `ref` goes on the scrolling element (a callback ref: the element may appear after
 * the first render).
 */
export function useStickToBottom() {
  const element = useRef<HTMLDivElement | null>(null);
  const stuck = useRef(true);
  const detach = useRef<(() => void) | undefined>(undefined);
  const [showJump, setShowJump] = useState(false);
  const ref = useCallback((scroller: HTMLDivElement | null) => {
    detach.current?.();
    detach.current = undefined;
    element.current = scroller;
    if (!scroller) return;
    let lastTop = scroller.scrollTop;
    const onScroll = () => {
      const distance = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight;
      if (distance < 48) stuck.current = true;
      else if (scroller.scrollTop < lastTop) stuck.current = false;
      lastTop = scroller.scrollTop;
      setShowJump(!stuck.current);
    };
    scroller.addEventListener('scroll', onScroll, { passive: true });
    const follow = new ResizeObserver(() => {
      if (stuck.current) scroller.scrollTop = scroller.scrollHeight;
    });
    follow.observe(scroller);
    // What the scroller shows (the messages) grows inside it.
    for (const child of scroller.children) follow.observe(child);
    const children = new MutationObserver((changes) => {
      for (const change of changes)
        for (const node of change.addedNodes) if (node instanceof Element) follow.observe(node);
    });
    children.observe(scroller, { childList: true });
    detach.current = () => {
      scroller.removeEventListener('scroll', onScroll);
      follow.disconnect();
      children.disconnect();
    };
  }, []);
  const jump = () => {
    const scroller = element.current;
    if (!scroller) return;
    stuck.current = true;
    scroller.scrollTop = scroller.scrollHeight;
    setShowJump(false);
  };
  return { ref, showJump, jump };
}
