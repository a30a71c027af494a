<?php
// The router `php -S` runs for the real-application examples (examples/mediawiki,
// examples/phpmyadmin): it serves the application's static files the way the
// web server of a real deployment does, and hands everything else back to
// php -S.
//
// php -S alone sends a static file with neither Last-Modified nor ETag, so a
// browser can keep none of them: every page of phpMyAdmin fetched its ~70
// scripts, styles and images again, and took ~600 ms to load where Apache
// (Debian's deployment of both packages) serves the same page in ~150 ms from
// the browser's cache. Here a file gets what Apache's core gives it: its
// Last-Modified and an ETag, a 304 to a request that already holds it, and no
// Cache-Control (the browser's own freshness rule decides, as behind Apache).

$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/');
$file = $_SERVER['DOCUMENT_ROOT'] . $path;
$types = [
    'js' => 'text/javascript', 'mjs' => 'text/javascript', 'css' => 'text/css',
    'png' => 'image/png', 'gif' => 'image/gif', 'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg',
    'svg' => 'image/svg+xml', 'ico' => 'image/x-icon', 'webp' => 'image/webp',
    'woff' => 'font/woff', 'woff2' => 'font/woff2', 'ttf' => 'font/ttf', 'eot' => 'application/vnd.ms-fontobject',
    'json' => 'application/json', 'map' => 'application/json', 'txt' => 'text/plain',
];
$ext = strtolower(pathinfo($path, PATHINFO_EXTENSION));
if (str_contains($path, '..') || !isset($types[$ext]) || !is_file($file)) {
    return false; // a PHP script, a directory, or a file php -S knows how to send
}

$mtime = filemtime($file);
$size = filesize($file);
$etag = sprintf('"%x-%x"', $size, $mtime);
header('Last-Modified: ' . gmdate('D, d M Y H:i:s', $mtime) . ' GMT');
header('ETag: ' . $etag);
$match = $_SERVER['HTTP_IF_NONE_MATCH'] ?? null;
$since = $_SERVER['HTTP_IF_MODIFIED_SINCE'] ?? null;
if ($match !== null ? $match === $etag : ($since !== null && strtotime($since) >= $mtime)) {
    http_response_code(304);
    return true;
}
header('Content-Type: ' . $types[$ext] . (in_array($ext, ['js', 'mjs', 'css', 'svg', 'json', 'txt'], true) ? '; charset=utf-8' : ''));
header('Content-Length: ' . $size);
if ($_SERVER['REQUEST_METHOD'] !== 'HEAD') {
    readfile($file);
}
return true;
