// The QR code a phone scans to join: drawn here in the browser by the qrcode package, so the
// token never leaves the page. The SVG is generated locally from our own text, which is why
// inserting it as markup is safe.
import QRCode from 'qrcode';
import { useEffect, useState } from 'preact/hooks';

export function ConnectionQr({ payload }: { payload: string }) {
  const [svg, setSvg] = useState<string>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let current = true;
    QRCode.toString(payload, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }).then(
      (markup) => current && (setSvg(markup), setFailed(false)),
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [payload]);
  if (failed) return <p class="field-error">The QR code could not be drawn; give the agent the pairing URL below instead.</p>;
  if (!svg) return <p class="muted">Drawing the QR code…</p>;
  return <div class="qr" role="img" aria-label="QR code with the device's credentials" dangerouslySetInnerHTML={{ __html: svg }} />;
}
