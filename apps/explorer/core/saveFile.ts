// Saving something the page holds as a file of the person's downloads (an export, an attachment):
// an object URL clicked as a link, released a minute later (a slow save may still be reading it).

export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
