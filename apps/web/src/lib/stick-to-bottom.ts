import { useEffect, useRef, useState } from 'preact/hooks';

/** Keeps the newest content in view unless the reader scrolled up. */
export function useStickToBottom(dependency: unknown) {
  const ref = useRef<HTMLDivElement>(null);
  const stuck = useRef(true);
  const [showJump, setShowJump] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const onScroll = () => {
      const distance = element.scrollHeight - element.scrollTop - element.clientHeight;
      stuck.current = distance < 48;
      setShowJump(!stuck.current);
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => element.removeEventListener('scroll', onScroll);
  }, []);
  useEffect(() => {
    const element = ref.current;
    if (element && stuck.current) element.scrollTop = element.scrollHeight;
  }, [dependency]);
  const jump = () => {
    const element = ref.current;
    if (!element) return;
    stuck.current = true;
    element.scrollTop = element.scrollHeight;
    setShowJump(false);
  };
  return { ref, showJump, jump };
}
